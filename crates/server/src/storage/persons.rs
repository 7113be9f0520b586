//! Persons and the question sets issued to them.

use super::idempotency::Replay;
use super::{StorageResult, Store, dispatch, postgres, sqlite};

#[derive(Debug, Clone)]
pub struct PersonRow {
    pub id: i64,
    pub subscriber_id: i64,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub created_at: i64,
    pub country_code: Option<String>,
    pub failed_attempts: u32,
    pub locked_until: Option<i64>,
    pub verified_at: Option<i64>,
}

pub(super) const COLUMNS: &str = "id, subscriber_id, first_name, last_name, email, created_at, country_code, failed_attempts, locked_until, verified_at";

#[derive(Debug, Clone)]
pub struct NewPerson {
    pub subscriber_id: i64,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub created_at: i64,
}

#[derive(Debug, Clone)]
pub struct QuestionSetRow {
    pub id: i64,
    pub person_id: i64,
    pub issued_at: i64,
    pub expires_at: i64,
    /// When the set was answered, or closed unanswered because the next one was asked.
    pub answered_at: Option<i64>,
    /// JSON, as `persons::questions` writes it.
    pub questions: String,
}

pub(super) const SET_COLUMNS: &str = "id, person_id, issued_at, expires_at, answered_at, questions";

/// An event a step records (`person.verified` or `person.locked`).
pub type PersonEvent = super::events::StoredEvent;

/// What asking for a question set changes, decided by the identity rules (`crate::persons`)
/// from the person and every set it was issued, as they are while the write holds them.
#[derive(Debug, Default)]
pub struct IssuePlan {
    /// A lock that ran out is forgotten with the failures that caused it.
    pub clear_lock: bool,
    /// Sets left unanswered are closed at this time, each counted as a failed attempt.
    pub close_unanswered_at: Option<i64>,
    /// The person is locked until then.
    pub lock_until: Option<i64>,
    /// The event a lock records.
    pub locked_event: Option<PersonEvent>,
    /// The set to issue: (issued_at, expires_at, questions as JSON).
    pub issue: Option<(i64, i64, String)>,
    /// The country of the address given (the signals' currency), kept when a set is issued.
    pub country_code: Option<String>,
}

/// The rules' decision, given the person as it is now and its sets, oldest first.
pub type Decide<R> = Box<dyn FnOnce(&PersonRow, &[QuestionSetRow]) -> StorageResult<(IssuePlan, R)> + Send>;

/// What an answer to the latest set changes.
#[derive(Debug)]
pub struct AnswerPlan {
    pub set_id: i64,
    pub now: i64,
    /// A lock that ran out is forgotten with the failures that caused it.
    pub clear_lock: bool,
    /// Verified (else one more failed attempt).
    pub passed: bool,
    /// The person is locked until then (a failure that was the last allowed).
    pub lock_until: Option<i64>,
    /// `person.verified` or `person.locked`.
    pub event: Option<PersonEvent>,
}

impl Store {
    /// Onboards a person (and keeps the request's replay); its id.
    pub async fn onboard_person(&self, person: NewPerson, replay: Option<Replay>) -> StorageResult<i64> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::persons::insert(connection, &person, replay)).await,
            db => postgres::persons::insert(db, person, replay).await,
        )
    }

    /// The person when the subscriber onboarded it.
    pub async fn person(&self, subscriber_id: i64, id: i64) -> StorageResult<Option<PersonRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::persons::get(connection, subscriber_id, id)).await,
            db => postgres::persons::get(db, subscriber_id, id).await,
        )
    }

    /// The subscriber's persons, newest first, each with the set it was issued last.
    pub async fn persons(&self, subscriber_id: i64) -> StorageResult<Vec<(PersonRow, Option<QuestionSetRow>)>> {
        dispatch!(self,
            db => db.read(move |connection| sqlite::persons::list(connection, subscriber_id)).await,
            db => postgres::persons::list(db, subscriber_id).await,
        )
    }

    /// The set issued last.
    pub async fn latest_question_set(&self, person_id: i64) -> StorageResult<Option<QuestionSetRow>> {
        dispatch!(self,
            db => db.read_by_key(move |connection| sqlite::persons::latest_question_set(connection, person_id)).await,
            db => postgres::persons::latest_question_set(db, person_id).await,
        )
    }

    /// Asks for a question set: `decide` sees the person and its sets as they are while this
    /// write holds them (concurrent asks are decided one after the other) and says what
    /// changes. Returns its answer, with the id of the set issued (if one was). `None` when
    /// the person is gone.
    pub async fn issue_question_set<R: Send + 'static>(
        &self,
        subscriber_id: i64,
        person_id: i64,
        decide: Decide<R>,
    ) -> StorageResult<Option<(R, Option<i64>)>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::persons::issue(connection, subscriber_id, person_id, decide)).await,
            db => postgres::persons::issue(db, subscriber_id, person_id, decide).await,
        )
    }

    /// Records the answer to set `plan.set_id`; `false` when it was answered already (a
    /// concurrent submission won).
    pub async fn answer_question_set(
        &self,
        subscriber_id: i64,
        person_id: i64,
        plan: AnswerPlan,
    ) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::persons::answer(connection, subscriber_id, person_id, &plan)).await,
            db => postgres::persons::answer(db, subscriber_id, person_id, plan).await,
        )
    }
}
