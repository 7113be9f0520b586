//! Persons' rows and the question sets' issued to them.

use super::labels::Labels;
use super::{Columns, FromRow};
use crate::storage::StorageResult;
use crate::storage::sql::sql;
use subscriber_protocol::PersonId;
use subscriber_protocol::QuestionSetId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;

#[derive(Debug, Clone)]
pub struct PersonRow {
    pub id: PersonId,
    pub subscriber_id: SubscriberId,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub created_at: UnixSeconds,
    pub country_code: Option<String>,
    pub failed_attempts: u32,
    pub locked_until: Option<UnixSeconds>,
    pub verified_at: Option<UnixSeconds>,
    pub labels: Labels,
}

pub(in crate::storage) const COLUMNS: &str = "id, subscriber_id, first_name, last_name, email, created_at, country_code, \
     failed_attempts, locked_until, verified_at, client_user_id, metadata";
/// How many columns [`COLUMNS`] names (a question set's follow in a join).
pub(in crate::storage) const COLUMN_COUNT: usize = 12;

#[derive(Debug, Clone)]
pub struct NewPerson {
    pub subscriber_id: SubscriberId,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub created_at: UnixSeconds,
    pub labels: Labels,
}

#[derive(Debug, Clone)]
pub struct QuestionSetRow {
    pub id: QuestionSetId,
    pub person_id: PersonId,
    pub issued_at: UnixSeconds,
    pub expires_at: UnixSeconds,
    /// When the set was answered, or closed unanswered because the next one was asked.
    pub answered_at: Option<UnixSeconds>,
    /// JSON, as `persons::questions` writes it.
    pub questions: String,
}

pub(in crate::storage) const SET_COLUMNS: &str = "id, person_id, issued_at, expires_at, answered_at, questions";

/// An event a step records (`person.verified` or `person.locked`).
pub type PersonEvent = super::events::StoredEvent;

/// What asking for a question set changes, decided by the identity rules (`crate::persons`)
/// from the person and every set it was issued, as they are while the write holds them.
#[derive(Debug, Default)]
pub struct IssuePlan {
    /// A lock that ran out is forgotten with the failures that caused it.
    pub clear_lock: bool,
    /// Sets left unanswered are closed at this time, each counted as a failed attempt.
    pub close_unanswered_at: Option<UnixSeconds>,
    /// The person is locked until then.
    pub lock_until: Option<UnixSeconds>,
    /// The event a lock records.
    pub locked_event: Option<PersonEvent>,
    /// The set to issue: (issued_at, expires_at, questions as JSON).
    pub issue: Option<(UnixSeconds, UnixSeconds, String)>,
    /// The country of the address given (the signals' currency), kept when a set is issued.
    pub country_code: Option<String>,
}

/// The rules' decision, given the person as it is now and its sets, oldest first.
pub type Decide<R> = Box<dyn FnOnce(&PersonRow, &[QuestionSetRow]) -> StorageResult<(IssuePlan, R)> + Send>;

/// What an answer to the latest set changes.
#[derive(Debug)]
pub struct AnswerPlan {
    pub set_id: QuestionSetId,
    pub now: UnixSeconds,
    /// A lock that ran out is forgotten with the failures that caused it.
    pub clear_lock: bool,
    /// Verified (else one more failed attempt).
    pub passed: bool,
    /// The person is locked until then (a failure that was the last allowed).
    pub lock_until: Option<UnixSeconds>,
    /// `person.verified` or `person.locked`.
    pub event: Option<PersonEvent>,
}

impl FromRow for PersonRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            subscriber_id: row.column(1)?,
            first_name: row.column(2)?,
            last_name: row.column(3)?,
            email: row.column(4)?,
            created_at: row.column(5)?,
            country_code: row.column(6)?,
            failed_attempts: row.column(7)?,
            locked_until: row.column(8)?,
            verified_at: row.column(9)?,
            labels: super::labels::read(row, 10)?,
        })
    }
}

impl FromRow for QuestionSetRow {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        Ok(Self {
            id: row.column(0)?,
            person_id: row.column(1)?,
            issued_at: row.column(2)?,
            expires_at: row.column(3)?,
            answered_at: row.column(4)?,
            questions: row.column(5)?,
        })
    }
}

/// A person with the set issued last, if any: [`COLUMNS`], then [`SET_COLUMNS`] (NULL when none).
impl FromRow for (PersonRow, Option<QuestionSetRow>) {
    fn from_row(row: &impl Columns) -> StorageResult<Self> {
        let set = row.skip(COLUMN_COUNT);
        let latest = match set.column::<Option<QuestionSetId>>(0)? {
            Some(_) => Some(QuestionSetRow::from_row(&set)?),
            None => None,
        };
        Ok((PersonRow::from_row(row)?, latest))
    }
}

sql! {
    /// The person `$1` when it is the subscriber's (`$2`).
    pub(in crate::storage) static GET = "SELECT {COLUMNS} FROM persons WHERE id = $1 AND subscriber_id = $2";
}

sql! {
    /// Every set issued to person `$1`, oldest first.
    pub(in crate::storage) static SETS = "SELECT {SET_COLUMNS} FROM person_question_sets WHERE person_id = $1 ORDER BY id";
}

sql! {
    /// Forgets person `$1`'s lock and the failures that caused it.
    pub(in crate::storage) static CLEAR_LOCK = "UPDATE persons SET locked_until = NULL, failed_attempts = 0 WHERE id = $1";
}

sql! {
    /// Closes person `$1`'s unanswered sets at `$2`.
    pub(in crate::storage) static CLOSE_UNANSWERED = "UPDATE person_question_sets SET answered_at = $2
        WHERE person_id = $1 AND answered_at IS NULL";
}

sql! {
    /// Counts `$3` more failures of person `$1`, locked until `$2` (NULL: not locked).
    pub(in crate::storage) static RECORD_FAILURES = "UPDATE persons SET failed_attempts = failed_attempts + $3,
        locked_until = $2 WHERE id = $1";
}

sql! {
    /// Issues a set to person `$1`: issued at `$2`, expiring at `$3`, questions `$4`; its id.
    pub(in crate::storage) static ISSUE = "INSERT INTO person_question_sets (person_id, issued_at, expires_at,
        questions) VALUES ($1, $2, $3, $4) RETURNING id";
}

sql! {
    /// Keeps the country `$2` of person `$1`'s address.
    pub(in crate::storage) static SET_COUNTRY = "UPDATE persons SET country_code = $2 WHERE id = $1";
}

sql! {
    /// Marks set `$1` answered at `$2`, unless it was.
    pub(in crate::storage) static MARK_ANSWERED = "UPDATE person_question_sets SET answered_at = $2
        WHERE id = $1 AND answered_at IS NULL";
}

sql! {
    /// Person `$1` verified at `$2`.
    pub(in crate::storage) static VERIFIED = "UPDATE persons SET verified_at = $2 WHERE id = $1";
}
