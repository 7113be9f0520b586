use crate::{ChoiceId, PersonId, PersonSessionId, QuestionId};
use chrono::{DateTime, Utc};
use macro_rules_attribute::apply;
use serde::{Deserialize, Serialize};

/// A person whose identity the caller will verify.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct OnboardPersonRequest {
    /// The person's first name.
    pub first_name: String,
    /// The person's last name.
    pub last_name: String,
    /// The person's e-mail address.
    pub email: String,
    /// The subscriber's own id for the user the person is belongs to (at most 128 characters):
    /// `GET /users/{clientUserId}` finds it, `DELETE /users/{clientUserId}` erases it.
    pub client_user_id: Option<String>,
    /// The subscriber's own notes: up to 20 string pairs (key at most 40 characters, value at
    /// most 500), returned on reads and in events, used for nothing else.
    pub metadata: Option<crate::Metadata>,
}

/// Where a person's verification stands: `onboarded` (no questions yet), `authenticating` (questions issued, not answered), `verified`, `failed` (answered wrongly; may try again while attempts remain) or `locked` (three failed verifications, until `lockedUntil`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum PersonStatus {
    /// Onboarded, no questions issued yet.
    Onboarded,
    /// Questions issued and not yet answered.
    Authenticating,
    Verified,
    /// Answered wrongly; may authenticate again while attempts remain.
    Failed,
    /// Three failed verifications: locked until `lockedUntil`.
    Locked,
}

/// The onboarded person.
#[apply(wire!)]
#[derive(Eq)]
pub struct OnboardPersonResponse {
    /// The person's id.
    pub person_id: PersonId,
    /// `onboarded` at first.
    pub status: PersonStatus,
}

/// Where the person lives.
#[apply(wire!)]
#[derive(Eq)]
pub struct PersonAddress {
    /// The street.
    pub street: String,
    /// The house number.
    pub street_no: String,
    /// The city.
    pub city: String,
    /// The postal code.
    pub zip: String,
    /// The country.
    pub country_code: String,
}

/// What the person tells about themselves, for the questions to ask.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct AuthenticatePersonRequest {
    /// The person, as onboarded.
    pub person_id: PersonId,
    /// `YYYY-MM-DD`
    pub date_of_birth: String,
    /// Where the person lives.
    #[serde(deserialize_with = "crate::object::only")]
    pub address: PersonAddress,
    /// A telephone number.
    pub phone_number: Option<String>,
    /// The last four digits of a US Social Security number.
    pub ssn_last4: Option<String>,
}

/// One of a question's choices.
#[apply(wire!)]
#[derive(Eq)]
pub struct QuestionChoice {
    /// The choice's id, for the answer.
    pub choice_id: ChoiceId,
    /// The choice as the person reads it.
    pub text: String,
}

/// A question about the person's history, to answer by choosing one choice.
#[apply(wire!)]
#[derive(Eq)]
pub struct Question {
    /// The question's id, for the answer.
    pub question_id: QuestionId,
    /// The question as the person reads it.
    pub text: String,
    /// Five choices; the last is always "None of the above".
    pub choices: Vec<QuestionChoice>,
}

/// Four questions for the person, valid for 10 minutes.
#[apply(wire!)]
#[derive(Eq)]
pub struct AuthenticatePersonResponse {
    /// The person.
    pub person_id: PersonId,
    /// When the questions stop taking answers (RFC 3339, UTC).
    pub expires_at: DateTime<Utc>,
    /// The questions, in the order to ask them.
    pub questions: Vec<Question>,
}

/// The choice made for one question.
#[apply(wire!)]
#[derive(Copy, Eq)]
pub struct Answer {
    /// The question answered.
    pub question_id: QuestionId,
    /// The choice made.
    pub choice_id: ChoiceId,
}

/// The person's answers to the questions last issued.
#[apply(wire!)]
#[derive(Eq)]
pub struct VerifyPersonRequest {
    /// The person.
    pub person_id: PersonId,
    /// One answer per question.
    #[serde(deserialize_with = "crate::object::each")]
    pub answers: Vec<Answer>,
}

/// The outcome of the answers: three or four right verify the person.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct VerifyPersonResponse {
    /// The person.
    pub person_id: PersonId,
    /// Whether the person is verified now.
    pub verified: bool,
    /// Where the verification stands now.
    pub status: PersonStatus,
    /// Verifications the person may still fail before the lock.
    pub attempts_remaining: u32,
    /// What the verified identity unlocks; absent unless verified.
    pub signals: Option<Signals>,
    /// When a locked person may try again (RFC 3339, UTC).
    pub locked_until: Option<DateTime<Utc>>,
}

/// What a verified identity unlocks.
#[apply(wire!)]
pub struct Signals {
    /// The person's estimated income.
    pub income: IncomeSignal,
    /// Where the person's money goes, largest share first.
    pub spending_categories: Vec<SpendingCategory>,
    /// How the person's spending moves.
    pub spending_delta: SpendingDelta,
}

/// An estimate of the person's yearly income.
#[apply(wire!)]
pub struct IncomeSignal {
    /// Income per year, major units.
    pub annual_amount: f64,
    /// ISO 4217 currency of `annualAmount`.
    pub currency: String,
    /// 0 to 1.
    pub confidence: f64,
}

/// One kind of spending.
#[apply(wire!)]
pub struct SpendingCategory {
    /// The kind of spending, e.g. `Groceries`.
    pub category: String,
    /// Average spending per month, major units.
    pub monthly_average: f64,
    /// Shares of all categories sum to 1.
    pub share: f64,
}

/// How fast spending changes.
#[apply(wire!)]
pub struct SpendingDelta {
    /// Relative change of spending over the period, e.g. 0.12 for 12% faster.
    pub value: f64,
    /// `increasing`, `decreasing` or `stable`.
    pub direction: String,
    /// The days the change is measured over.
    pub period_days: u32,
}

/// A person the caller onboarded, and where their verification stands.
#[apply(with_labels!)]
#[apply(wire!)]
pub struct Person {
    /// The person's id.
    pub person_id: PersonId,
    /// The person's first name.
    pub first_name: String,
    /// The person's last name.
    pub last_name: String,
    /// The person's e-mail address.
    pub email: String,
    /// Where the verification stands.
    pub status: PersonStatus,
    /// Whether the person is verified.
    pub verified: bool,
    /// Verifications the person may still fail before the lock.
    pub attempts_remaining: u32,
    /// When the person was onboarded (RFC 3339, UTC).
    pub created_at: DateTime<Utc>,
    /// When the person was verified (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub verified_at: Option<DateTime<Utc>>,
    /// When a locked person may try again (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub locked_until: Option<DateTime<Utc>>,
    /// When the questions issued stop taking answers (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub questions_expire_at: Option<DateTime<Utc>>,
    /// What the verified identity unlocks; present once verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub signals: Option<Signals>,
}

/// The caller's persons, newest first.
#[apply(wire!)]
pub struct PersonList {
    /// Every person of the caller.
    pub persons: Vec<Person>,
}

/// The right answers to a person's questions (sandbox only), in the shape verify takes.
#[apply(wire!)]
#[derive(Eq)]
pub struct SandboxAnswers {
    /// One right answer per question issued.
    pub answers: Vec<Answer>,
}

/// The answer to `DELETE /persons/{personId}`.
#[apply(wire!)]
#[derive(Eq)]
pub struct RemovePersonResponse {
    /// `Person removed`.
    pub message: String,
    /// The removed person's id (never given to another).
    pub person_id: PersonId,
}

/// A one-time page where the person verifies their identity themselves, on their own device.
#[serde_with::skip_serializing_none]
#[apply(wire!)]
#[derive(Default, Eq)]
#[cfg_attr(feature = "ts", ts(optional_fields))]
pub struct CreatePersonSessionRequest {
    /// Where the person's browser is sent when they are done (`?sessionId=…&status=…` added,
    /// `status` `verified` or `locked`): it must begin with one of the subscriber's registered
    /// return URLs (`PATCH /subscriber`), or, in the sandbox, be `http(s)` on `localhost` or
    /// `127.0.0.1`.
    pub return_url: Option<String>,
}

/// The person's identity page: open `url` in their browser, then follow `GET
/// /persons/{personId}` (or `person.verified` / `person.locked`).
#[apply(wire!)]
#[derive(Eq)]
pub struct PersonSessionResponse {
    /// The page's id (`sessionId` on the way back).
    pub session_id: PersonSessionId,
    /// The person.
    pub person_id: PersonId,
    /// The page; open it in the person's browser. It works once, until `expiresAt`.
    pub url: String,
    /// When the page stops working (RFC 3339, UTC).
    pub expires_at: DateTime<Utc>,
}
