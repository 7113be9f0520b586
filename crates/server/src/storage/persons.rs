//! Persons and the question sets issued to them.

use super::rows::idempotency::Replay;
use super::rows::persons::{COLUMNS, GET, SET_COLUMNS};
use super::sql::{args, sql};
use super::statement::Read;
use super::{StorageResult, Store, dispatch, postgres, sqlite};
use subscriber_protocol::PersonId;
use subscriber_protocol::QuestionSetId;
use subscriber_protocol::SubscriberId;

pub use super::rows::persons::{AnswerPlan, Decide, IssuePlan, NewPerson, PersonEvent, PersonRow, QuestionSetRow};

impl Store {
    /// Onboards a person (and keeps the request's replay); its id.
    pub async fn onboard_person(&self, person: NewPerson, replay: Option<Replay>) -> StorageResult<PersonId> {
        let NewPerson { subscriber_id, first_name, last_name, email, created_at, labels } = person;
        let sql = sql!(
            "INSERT INTO persons (subscriber_id, first_name, last_name, email, created_at, client_user_id, metadata)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id"
        );
        let [client_user_id, metadata] = super::rows::labels::args(&labels);
        let args = args![subscriber_id, first_name, last_name, email, created_at, client_user_id, metadata];
        self.insert_keeping_replay(sql, args, created_at, replay).await.map(PersonId)
    }

    /// The person when the subscriber onboarded it.
    pub async fn person(&self, subscriber_id: SubscriberId, id: PersonId) -> StorageResult<Option<PersonRow>> {
        self.fetch_one(Read::ByKey, &GET, args![id, subscriber_id]).await
    }

    /// The subscriber's persons, newest first, each with the set it was issued last.
    pub async fn persons(
        &self,
        subscriber_id: SubscriberId,
    ) -> StorageResult<Vec<(PersonRow, Option<QuestionSetRow>)>> {
        let sql = sql!(
            "SELECT p.*, s.* FROM (SELECT {COLUMNS} FROM persons WHERE subscriber_id = $1) p
             LEFT JOIN (SELECT {SET_COLUMNS} FROM person_question_sets) s
                 ON s.id = (SELECT MAX(q.id) FROM person_question_sets q WHERE q.person_id = p.id)
             ORDER BY p.id DESC"
        );
        self.fetch_all(sql, args![subscriber_id]).await
    }

    /// The set issued last.
    pub async fn latest_question_set(&self, person_id: PersonId) -> StorageResult<Option<QuestionSetRow>> {
        let sql = sql!("SELECT {SET_COLUMNS} FROM person_question_sets WHERE person_id = $1 ORDER BY id DESC LIMIT 1");
        self.fetch_one(Read::ByKey, sql, args![person_id]).await
    }

    /// Asks for a question set: `decide` sees the person and its sets as they are while this
    /// write holds them (concurrent asks are decided one after the other) and says what
    /// changes. Returns its answer, with the id of the set issued (if one was). `None` when
    /// the person is gone.
    pub async fn issue_question_set<R: Send + 'static>(
        &self,
        subscriber_id: SubscriberId,
        person_id: PersonId,
        decide: Decide<R>,
    ) -> StorageResult<Option<(R, Option<QuestionSetId>)>> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::persons::issue(connection, subscriber_id, person_id, decide)).await,
            db => postgres::persons::issue(db, subscriber_id, person_id, decide).await,
        )
    }

    /// Records the answer to set `plan.set_id`; `false` when it was answered already (a
    /// concurrent submission won).
    pub async fn answer_question_set(
        &self,
        subscriber_id: SubscriberId,
        person_id: PersonId,
        plan: AnswerPlan,
    ) -> StorageResult<bool> {
        dispatch!(self,
            db => db.write(move |connection| sqlite::persons::answer(connection, subscriber_id, person_id, &plan)).await,
            db => postgres::persons::answer(db, subscriber_id, person_id, plan).await,
        )
    }
}
