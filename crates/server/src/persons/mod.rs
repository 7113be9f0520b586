//! Identity verification of persons: onboard, authenticate (personal information in,
//! four multiple-choice questions out), verify (answers in; three right of four pass).
//! Three failed verifications lock the person for `--person-lock-seconds` (24 h).
//! A verified person unlocks income, spending-category and spending-delta signals.
//!
//! What a person types to authenticate (date of birth, address, phone, SSN digits) is
//! checked and used to fit the questions, and never stored: only the country is kept, for
//! the currency of the signals.

pub mod session;
pub mod signals;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;
use subscriber_protocol::PersonId;
use subscriber_protocol::SubscriberId;
use subscriber_protocol::UnixSeconds;
use subscriber_protocol::{ChoiceId, QuestionId, QuestionSetId};

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use chrono::{Datelike, Utc};
use subscriber_protocol::{
    Answer, AuthenticatePersonRequest, AuthenticatePersonResponse, Environment, ErrorBody, OnboardPersonRequest,
    OnboardPersonResponse, Person, PersonList, PersonStatus, Question, QuestionChoice, RemovePersonResponse,
    SandboxAnswers, Success, VerifyPersonRequest, VerifyPersonResponse,
};
use subscriber_protocol::{EventData, Metadata, PersonEventData, UpdateMetadataRequest};
use utoipa_axum::routes;

use subscriber_protocol::rules::{self, persons::ValidPerson};

use crate::erasure;
use crate::error::{ApiError, Validation};
use crate::http::extract::{ApiJson, Auth, IdPath};
use crate::http::idempotency::Idempotent;
use crate::http::routes::Routes;
use crate::identity_source::{Applicant, IdentitySource};
use crate::labels;
use crate::paging;
use crate::simulation::identity::IssuedQuestion;
use crate::state::AppState;
use crate::storage::StorageError;
use crate::storage::events::StoredEvent;
use crate::storage::persons::{AnswerPlan, Decide, IssuePlan, NewPerson, PersonRow, QuestionSetRow};
use crate::storage::removals::UserObject;

pub fn routes(api: Routes) -> Routes {
    api.api_creating(routes!(onboard))
        .api(routes!(list))
        .api(routes!(authenticate))
        .api(routes!(verify))
        .api(routes!(details))
        .api(routes!(update))
        .api(routes!(remove))
        .api_creating(routes!(session::create))
        .api(routes!(sandbox_answers))
}

/// Failed verifications before the lock.
pub const MAX_FAILED_VERIFICATIONS: u32 = 3;
/// Right answers of four that pass.
pub const ANSWERS_TO_PASS: usize = 3;
/// Onboards a person for identity verification (step 1 of 3)
///
/// Then `POST /persons/authenticate` with what the person tells about themselves, and `POST
/// /persons/verify` with their answers.
#[utoipa::path(post, path = "/persons", tag = "persons", operation_id = "onboardPerson",
    request_body = OnboardPersonRequest,
    responses(
        (status = 201, description = "The person is onboarded.", body = Success<OnboardPersonResponse>),
        (status = 409, description = "The Idempotency-Key was used with another body.", body = ErrorBody),
    ))]
async fn onboard(
    State(state): State<AppState>,
    auth: Auth,
    idempotent: Idempotent,
    ApiJson(request): ApiJson<OnboardPersonRequest>,
) -> Result<Response, ApiError> {
    let ValidPerson { first_name, last_name, email } = rules::persons::person(&request)?;
    let labels = labels::sent(request.client_user_id.as_deref(), request.metadata.as_ref())?;
    let new = NewPerson {
        subscriber_id: auth.subscriber_id,
        first_name,
        last_name,
        email,
        created_at: UnixSeconds::now(),
        labels,
    };
    let replay = idempotent.replay(|person_id| OnboardPersonResponse { person_id, status: PersonStatus::Onboarded });
    let person_id = state.db.onboard_person(new, replay).await?;
    tracing::info!(person_id = person_id.get(), "person onboarded");
    let body = OnboardPersonResponse { person_id, status: PersonStatus::Onboarded };
    Ok(idempotent.created(body))
}

/// The caller's person, or 404.
async fn owned_person(
    state: &AppState,
    subscriber_id: SubscriberId,
    person_id: PersonId,
) -> Result<PersonRow, ApiError> {
    state.db.person(subscriber_id, person_id).await?.ok_or_else(|| no_such_person(person_id))
}

fn no_such_person(person_id: PersonId) -> ApiError {
    ApiError::not_found(format!("no person {person_id} was onboarded by this subscriber"))
}

fn locked(person: &PersonRow, now: UnixSeconds) -> Result<(), ApiError> {
    match person.locked_until {
        Some(until) if until > now => Err(locked_error(person.id, until)?),
        _ => Ok(()),
    }
}

/// The 403 of a locked person (`lockedUntil`); `Err` only when `until` is not a time.
fn locked_error(person_id: PersonId, until: UnixSeconds) -> Result<ApiError, ApiError> {
    let until = paging::checked_time(until)?;
    Ok(ApiError::Locked {
        message: format!(
            "person {person_id} failed or left unanswered {MAX_FAILED_VERIFICATIONS} question sets and is locked \
             until {}",
            until.to_rfc3339()
        ),
        until,
    })
}

/// Failures that still count: a lock that has run out forgets them.
fn counted_failures(person: &PersonRow) -> u32 {
    if person.locked_until.is_some() { 0 } else { person.failed_attempts }
}

fn attempts_remaining(person: &PersonRow, now: UnixSeconds) -> u32 {
    match person.locked_until {
        Some(until) if until > now => 0,
        _ => MAX_FAILED_VERIFICATIONS.saturating_sub(counted_failures(person)),
    }
}

fn status_of(person: &PersonRow, latest: Option<&QuestionSetRow>, now: UnixSeconds) -> PersonStatus {
    if person.verified_at.is_some() {
        PersonStatus::Verified
    } else if person.locked_until.is_some_and(|until| until > now) {
        PersonStatus::Locked
    } else if latest.is_some_and(|set| set.answered_at.is_none() && set.expires_at > now) {
        PersonStatus::Authenticating
    } else if counted_failures(person) > 0 {
        PersonStatus::Failed
    } else {
        PersonStatus::Onboarded
    }
}

fn question_id(set_id: QuestionSetId, position: usize) -> QuestionId {
    QuestionId(set_id.get() * 10 + i64::try_from(position).unwrap_or(0) + 1)
}

fn choice_id(question_id: QuestionId, position: usize) -> ChoiceId {
    ChoiceId(question_id.get() * 10 + i64::try_from(position).unwrap_or(0) + 1)
}

fn stored_questions(set: &QuestionSetRow) -> Result<Vec<IssuedQuestion>, ApiError> {
    serde_json::from_str(&set.questions).map_err(ApiError::internal)
}

/// The identity source of this environment, or 501 `not_configured`.
fn identity_source(state: &AppState) -> Result<Arc<dyn IdentitySource>, ApiError> {
    state.identity_source.clone().ok_or_else(|| {
        ApiError::NotConfigured(format!(
            "identity verification is not configured in the {} environment: no identity source is connected \
             (synthetic identities exist only in the sandbox)",
            state.environment().as_str()
        ))
    })
}

/// Why no set was issued. Decided inside the transaction, which still commits: the
/// unanswered sets it closed stay counted as failures.
enum Refused {
    Verified,
    Locked { until: UnixSeconds },
    Source(anyhow::Error),
}

/// When a set is issued, until when it holds, and how long a lock lasts.
struct IssueTimes {
    now: UnixSeconds,
    expires_at: UnixSeconds,
    lock: Duration,
}

/// A question whose topic (its text) was asked before is asked again exactly as first
/// asked: the same choices in the same order, the same right one. Fresh decoys on every ask
/// would let anyone find the truth by counting which choice recurs.
fn keep_earlier_choices(fresh: Vec<IssuedQuestion>, earlier: &[IssuedQuestion]) -> Vec<IssuedQuestion> {
    fresh
        .into_iter()
        .map(|question| earlier.iter().find(|asked| asked.text == question.text).cloned().unwrap_or(question))
        .collect()
}

/// Decides the person's next question set under the rules that keep the answers from being
/// learnt by asking:
/// - every earlier set left unanswered (open or expired) is closed and counts as a failed
///   attempt, so the lock after `MAX_FAILED_VERIFICATIONS` failures also stops asking without
///   answering: at most three sets per lock period (24 h), the fourth ask is refused locked
///   (and `person.locked` recorded, as a lock for wrong answers records it);
/// - a topic asked before keeps its choices (`keep_earlier_choices`).
///
/// `current` and `sets` are as the store holds them while it applies the plan, so concurrent
/// asks are decided one after the other. `make(set_number)` asks the identity source.
fn plan_question_set(
    current: &PersonRow,
    sets: &[QuestionSetRow],
    times: &IssueTimes,
    country_code: String,
    make: impl FnOnce(u32) -> anyhow::Result<Vec<IssuedQuestion>>,
) -> Result<(IssuePlan, Result<Vec<IssuedQuestion>, Refused>), StorageError> {
    let mut plan = IssuePlan::default();
    if current.verified_at.is_some() {
        return Ok((plan, Err(Refused::Verified)));
    }
    let mut failures = current.failed_attempts;
    match current.locked_until {
        Some(until) if until > times.now => return Ok((plan, Err(Refused::Locked { until }))),
        Some(_) => {
            plan.clear_lock = true;
            failures = 0;
        }
        None => {}
    }
    let abandoned = u32::try_from(sets.iter().filter(|set| set.answered_at.is_none()).count()).unwrap_or(u32::MAX);
    if abandoned > 0 {
        failures = failures.saturating_add(abandoned);
        plan.close_unanswered_at = Some(times.now);
        plan.lock_until = (failures >= MAX_FAILED_VERIFICATIONS).then_some(times.now.plus(times.lock));
        if let Some(until) = plan.lock_until {
            tracing::info!(person_id = current.id.get(), "person locked: question sets left unanswered");
            plan.locked_event = Some(StoredEvent::new(&locked_event(current, until)));
            return Ok((plan, Err(Refused::Locked { until })));
        }
    }
    let earlier = sets
        .iter()
        .map(|set| serde_json::from_str::<Vec<IssuedQuestion>>(&set.questions))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| StorageError::Corrupt(error.to_string()))?;
    let set_number = u32::try_from(earlier.len()).unwrap_or(u32::MAX);
    let fresh = match make(set_number) {
        Ok(fresh) => fresh,
        Err(error) => return Ok((plan, Err(Refused::Source(error)))),
    };
    let earlier: Vec<IssuedQuestion> = earlier.into_iter().flatten().collect();
    let issued = keep_earlier_choices(fresh, &earlier);
    let json = serde_json::to_string(&issued).map_err(|error| StorageError::Corrupt(error.to_string()))?;
    plan.issue = Some((times.now, times.expires_at, json));
    plan.country_code = Some(country_code);
    Ok((plan, Ok(issued)))
}

/// The data of a `person.locked` event.
fn locked_event(person: &PersonRow, until: UnixSeconds) -> EventData {
    EventData::PersonLocked(person_event(person, PersonStatus::Locked, until.to_datetime()))
}

/// The data of a `person.verified` or `person.locked` event.
fn person_event(
    person: &PersonRow,
    status: PersonStatus,
    locked_until: Option<chrono::DateTime<Utc>>,
) -> PersonEventData {
    PersonEventData {
        person_id: person.id,
        status,
        locked_until,
        client_user_id: person.labels.client_user_id.clone(),
        metadata: person.labels.metadata.clone(),
    }
}

/// Sends the person's information and gets four questions (step 2 of 3)
///
/// The multiple-choice questions are valid 10 minutes. Nothing typed here is stored. A set left
/// unanswered counts as a failed attempt when the next one is asked, so a person gets at most three
/// sets before the 24-hour lock; a topic asked again has the same choices as before. Outside the
/// sandbox this answers 501 `not_configured` until an identity source is configured.
#[utoipa::path(post, path = "/persons/authenticate", tag = "persons", operation_id = "authenticatePerson",
    request_body = AuthenticatePersonRequest,
    responses(
        (status = 200, description = "The questions to show the person.", body = Success<AuthenticatePersonResponse>),
        (status = 403, description = "The person is locked (`lockedUntil`) after three question sets failed or left \
            unanswered.", body = ErrorBody),
        (status = 404, description = "No such person of the caller.", body = ErrorBody),
        (status = 409, description = "The person is already verified.", body = ErrorBody),
        (status = 501, description = "No identity source is configured in this environment (`not_configured`): \
            only the sandbox has one.", body = ErrorBody),
    ))]
async fn authenticate(
    State(state): State<AppState>,
    auth: Auth,
    ApiJson(request): ApiJson<AuthenticatePersonRequest>,
) -> Result<Json<Success<AuthenticatePersonResponse>>, ApiError> {
    Ok(Json(Success::new(authenticate_person(&state, auth.subscriber_id, request).await?)))
}

/// Issues the subscriber's person a question set for what they told about themselves: the
/// API's step 2, and the identity page's (`crate::hosted::identity`).
pub(crate) async fn authenticate_person(
    state: &AppState,
    subscriber_id: SubscriberId,
    request: AuthenticatePersonRequest,
) -> Result<AuthenticatePersonResponse, ApiError> {
    let source = identity_source(state)?;
    let today = Utc::now().date_naive();
    let information = rules::persons::information(&request, today)?;
    let person = owned_person(state, subscriber_id, request.person_id).await?;
    let now = UnixSeconds::now();
    let times = IssueTimes {
        now,
        expires_at: now.plus(Duration::from_secs(state.config.person_questions_seconds)),
        lock: Duration::from_secs(state.config.person_lock_seconds),
    };
    let person_id = person.id;
    let this_year = today.year();
    let expires_at = times.expires_at;
    let country_code = information.country_code.clone();
    let decide: Decide<Result<Vec<IssuedQuestion>, Refused>> = Box::new(move |current, sets| {
        plan_question_set(current, sets, &times, country_code, |set_number| {
            source.questions(&Applicant {
                person_id,
                first_name: &current.first_name,
                last_name: &current.last_name,
                information: &request,
                birth_year: information.birth_year,
                this_year,
                set_number,
            })
        })
    });
    let decided = state.db.issue_question_set(person.subscriber_id, person_id, decide).await?;
    let (outcome, set_id) =
        decided.ok_or_else(|| ApiError::internal(anyhow::anyhow!("person {person_id} vanished")))?;
    let (set_id, issued) = match outcome.map(|issued| (set_id, issued)) {
        Ok((Some(set_id), issued)) => (set_id, issued),
        Ok((None, _)) => return Err(ApiError::internal(anyhow::anyhow!("no question set was stored"))),
        Err(Refused::Verified) => return Err(ApiError::conflict(format!("person {person_id} is already verified"))),
        Err(Refused::Locked { until }) => return Err(locked_error(person_id, until)?),
        Err(Refused::Source(cause)) => return Err(ApiError::internal(cause.context("identity source failed"))),
    };
    tracing::info!(person_id = person_id.get(), set_id = set_id.get(), "identity questions issued");
    let questions = questions_of(set_id, &issued);
    Ok(AuthenticatePersonResponse { person_id, expires_at: paging::checked_time(expires_at)?, questions })
}

/// A set's questions as the person is asked them, with their ids and their choices' ids.
fn questions_of(set_id: QuestionSetId, issued: &[IssuedQuestion]) -> Vec<Question> {
    issued
        .iter()
        .enumerate()
        .map(|(position, question)| {
            let question_id = question_id(set_id, position);
            Question {
                question_id,
                text: question.text.clone(),
                choices: question
                    .choices
                    .iter()
                    .enumerate()
                    .map(|(index, text)| QuestionChoice {
                        choice_id: choice_id(question_id, index),
                        text: text.clone(),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The person's open question set (issued, not answered, not expired) as it was asked, or
/// `None`: what the identity page shows again when reloaded.
pub(crate) async fn open_questions(
    state: &AppState,
    person_id: PersonId,
    now: UnixSeconds,
) -> Result<Option<AuthenticatePersonResponse>, ApiError> {
    let Some(set) = state.db.latest_question_set(person_id).await? else { return Ok(None) };
    if set.answered_at.is_some() || now >= set.expires_at {
        return Ok(None);
    }
    let issued = stored_questions(&set)?;
    Ok(Some(AuthenticatePersonResponse {
        person_id,
        expires_at: paging::checked_time(set.expires_at)?,
        questions: questions_of(set.id, &issued),
    }))
}

/// How many answers are right; every question of the set must be answered once, with one
/// of its own choices.
fn score(set_id: QuestionSetId, issued: &[IssuedQuestion], answers: &[Answer]) -> Result<usize, ApiError> {
    let mut validation = Validation::new();
    let by_id: HashMap<QuestionId, &IssuedQuestion> =
        issued.iter().enumerate().map(|(position, question)| (question_id(set_id, position), question)).collect();
    let mut seen = HashSet::new();
    let mut right = 0;
    for (index, answer) in answers.iter().enumerate() {
        let Some(question) = by_id.get(&answer.question_id) else {
            validation.reject(
                &format!("answers[{index}].questionId"),
                format!("question {} is not one of the questions last issued to this person", answer.question_id),
            );
            continue;
        };
        if !seen.insert(answer.question_id) {
            validation.reject(&format!("answers[{index}].questionId"), "answers the same question twice");
            continue;
        }
        let choice =
            (0..question.choices.len()).find(|position| choice_id(answer.question_id, *position) == answer.choice_id);
        match choice {
            None => validation.reject(
                &format!("answers[{index}].choiceId"),
                format!("choice {} is not a choice of question {}", answer.choice_id, answer.question_id),
            ),
            Some(position) if position == question.correct => right += 1,
            Some(_) => {}
        }
    }
    if validation.is_empty() && seen.len() != issued.len() {
        validation.reject("answers", format!("answer all {} questions, one answer each", issued.len()));
    }
    Ok(validation.finish(right)?)
}

/// Sends the person's answers (step 3 of 3)
///
/// Three right of four verify the person and unlock the signals; three failed attempts lock the person
/// for 24 hours.
#[utoipa::path(post, path = "/persons/verify", tag = "persons", operation_id = "verifyPerson",
    request_body = VerifyPersonRequest,
    responses(
        (status = 200, description = "Whether the person is verified, with the signals when so.",
            body = Success<VerifyPersonResponse>),
        (status = 403, description = "The person is locked after three failed verifications (`lockedUntil`).",
            body = ErrorBody),
        (status = 404, description = "No such person of the caller.", body = ErrorBody),
        (status = 409, description = "The person is already verified, or has no open questions: authenticate \
            first.", body = ErrorBody),
        (status = 501, description = "No identity source is configured in this environment (`not_configured`).",
            body = ErrorBody),
    ))]
async fn verify(
    State(state): State<AppState>,
    auth: Auth,
    ApiJson(request): ApiJson<VerifyPersonRequest>,
) -> Result<Json<Success<VerifyPersonResponse>>, ApiError> {
    Ok(Json(Success::new(verify_person(&state, auth.subscriber_id, request).await?)))
}

/// Scores the subscriber's person's answers to their open question set: the API's step 3, and
/// the identity page's.
pub(crate) async fn verify_person(
    state: &AppState,
    subscriber_id: SubscriberId,
    request: VerifyPersonRequest,
) -> Result<VerifyPersonResponse, ApiError> {
    // Sets issued by a source this environment does not have (a database that served the
    // sandbox) are not answerable here either.
    identity_source(state)?;
    let person = owned_person(state, subscriber_id, request.person_id).await?;
    let now = UnixSeconds::now();
    locked(&person, now)?;
    if person.verified_at.is_some() {
        return Err(ApiError::conflict(format!("person {} is already verified", person.id)));
    }
    let person_id = person.id;
    let latest = state.db.latest_question_set(person_id).await?.ok_or_else(|| {
        ApiError::conflict("no questions were issued to this person: call POST /persons/authenticate first")
    })?;
    if latest.answered_at.is_some() {
        return Err(ApiError::conflict(
            "these questions were already answered: call POST /persons/authenticate for new ones",
        ));
    }
    if now >= latest.expires_at {
        return Err(ApiError::invalid(
            "the questions have expired: call POST /persons/authenticate again for new ones",
        ));
    }
    let issued = stored_questions(&latest)?;
    let right = score(latest.id, &issued, &request.answers)?;
    let passed = right >= ANSWERS_TO_PASS;
    let failures = counted_failures(&person) + u32::from(!passed);
    let lock = Duration::from_secs(state.config.person_lock_seconds);
    let lock_until = (!passed && failures >= MAX_FAILED_VERIFICATIONS).then_some(now.plus(lock));
    let set_id = latest.id;
    let lock_ran_out = person.locked_until.is_some();
    let event = if passed {
        let verified = person_event(&person, PersonStatus::Verified, None);
        Some(StoredEvent::new(&EventData::PersonVerified(verified)))
    } else {
        lock_until.map(|until| StoredEvent::new(&locked_event(&person, until)))
    };
    let plan = AnswerPlan { set_id, now, clear_lock: lock_ran_out, passed, lock_until, event };
    let first_answer = state.db.answer_question_set(subscriber_id, person_id, plan).await?;
    if !first_answer {
        return Err(ApiError::conflict(
            "these questions were already answered: call POST /persons/authenticate for new ones",
        ));
    }
    tracing::info!(person_id = person_id.get(), passed, "identity verification answered");
    let attempts_remaining = MAX_FAILED_VERIFICATIONS.saturating_sub(failures);
    let (status, signals) = if passed {
        (
            PersonStatus::Verified,
            Some(signals::signals(state.config.sandbox_seed, person_id, person.country_code.as_deref())),
        )
    } else if lock_until.is_some() {
        (PersonStatus::Locked, None)
    } else {
        (PersonStatus::Failed, None)
    };
    Ok(VerifyPersonResponse {
        person_id,
        verified: passed,
        status,
        attempts_remaining,
        signals,
        locked_until: lock_until.map(paging::checked_time).transpose()?,
    })
}

pub(crate) fn person_view(
    seed: u64,
    person: PersonRow,
    latest: Option<&QuestionSetRow>,
    now: UnixSeconds,
) -> Result<Person, ApiError> {
    let status = status_of(&person, latest, now);
    let time = |at: Option<UnixSeconds>| at.map(paging::checked_time).transpose();
    Ok(Person {
        person_id: person.id,
        status,
        verified: person.verified_at.is_some(),
        attempts_remaining: attempts_remaining(&person, now),
        created_at: paging::checked_time(person.created_at)?,
        verified_at: time(person.verified_at)?,
        locked_until: time(person.locked_until.filter(|until| *until > now))?,
        questions_expire_at: time(latest.filter(|_| status == PersonStatus::Authenticating).map(|set| set.expires_at))?,
        signals: person.verified_at.map(|_| signals::signals(seed, person.id, person.country_code.as_deref())),
        first_name: person.first_name,
        last_name: person.last_name,
        email: person.email,
        client_user_id: person.labels.client_user_id,
        metadata: person.labels.metadata,
    })
}

/// A person of the caller
///
/// Its status and, once verified, the signals.
#[utoipa::path(get, path = "/persons/{person_id}", tag = "persons", operation_id = "getPerson",
    params(("person_id" = i64, Path, description = "A personId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The person.", body = Success<Person>),
        (status = 404, description = "No such person of the caller.", body = ErrorBody),
    ))]
async fn details(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(person_id): IdPath<PersonId>,
) -> Result<Json<Success<Person>>, ApiError> {
    let person = owned_person(&state, auth.subscriber_id, person_id).await?;
    let latest = state.db.latest_question_set(person_id).await?;
    let now = UnixSeconds::now();
    Ok(Json(Success::new(person_view(state.config.sandbox_seed, person, latest.as_ref(), now)?)))
}

/// Sets notes on a person of the caller
///
/// Keys merge with those set before; a key sent with "" is removed. At most 20 pairs in all
/// (key at most 40 characters, value at most 500).
#[utoipa::path(patch, path = "/persons/{person_id}", tag = "persons", operation_id = "updatePerson",
    params(("person_id" = i64, Path, description = "A personId of the caller.", minimum = 1)),
    request_body = UpdateMetadataRequest,
    responses(
        (status = 200, description = "The person as it is now.", body = Success<Person>),
        (status = 400, description = "A pair is past its limits: nothing changed.", body = ErrorBody),
        (status = 404, description = "No such person of the caller.", body = ErrorBody),
    ))]
async fn update(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(person_id): IdPath<PersonId>,
    ApiJson(request): ApiJson<UpdateMetadataRequest>,
) -> Result<Json<Success<Person>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let read = || owned_person(&state, subscriber_id, person_id);
    let metadata_of: fn(&PersonRow) -> &Metadata = |row| &row.labels.metadata;
    let person = labels::patch_metadata(
        &state,
        subscriber_id,
        UserObject::Person(person_id),
        &request.metadata,
        read,
        metadata_of,
    )
    .await?;
    let latest = state.db.latest_question_set(person_id).await?;
    let now = UnixSeconds::now();
    Ok(Json(Success::new(person_view(state.config.sandbox_seed, person, latest.as_ref(), now)?)))
}

/// Removes a person: their data is erased
///
/// The person, the questions they were asked with their answers, their signals and their
/// events go; one `person.removed` event with the id alone is left. Every read of the person
/// is 404 from then on.
#[utoipa::path(delete, path = "/persons/{person_id}", tag = "persons", operation_id = "removePerson",
    params(("person_id" = i64, Path, description = "A personId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The person is removed.", body = Success<RemovePersonResponse>),
        (status = 404, description = "No such person of the caller (or removed already).", body = ErrorBody),
    ))]
async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(person_id): IdPath<PersonId>,
) -> Result<Json<Success<RemovePersonResponse>>, ApiError> {
    if !erasure::erase(&state, auth.subscriber_id, UserObject::Person(person_id)).await? {
        return Err(no_such_person(person_id));
    }
    tracing::info!(person_id = person_id.get(), "person removed");
    Ok(Json(Success::new(RemovePersonResponse { message: "Person removed".to_owned(), person_id })))
}

/// The caller's persons, newest first
///
/// Every person the caller onboarded, with where each one's verification stands.
#[utoipa::path(get, path = "/persons", tag = "persons", operation_id = "listPersons",
    responses((status = 200, description = "The caller's persons.", body = Success<PersonList>)))]
async fn list(State(state): State<AppState>, auth: Auth) -> Result<Json<Success<PersonList>>, ApiError> {
    let subscriber_id = auth.subscriber_id;
    let rows = state.db.persons(subscriber_id).await?;
    let now = UnixSeconds::now();
    let seed = state.config.sandbox_seed;
    let persons = rows
        .into_iter()
        .map(|(person, latest)| person_view(seed, person, latest.as_ref(), now))
        .collect::<Result<_, _>>()?;
    Ok(Json(Success::new(PersonList { persons })))
}

/// The right choices of the questions issued last
///
/// Sandbox only.
#[utoipa::path(get, path = "/sandbox/persons/{person_id}/answers", tag = "sandbox",
    operation_id = "getSandboxAnswers",
    params(("person_id" = i64, Path, description = "A personId of the caller.", minimum = 1)),
    responses(
        (status = 200, description = "The right choices, in the shape verify takes.", body = Success<SandboxAnswers>),
        (status = 404, description = "Not the sandbox, no such person of the caller, or no questions issued yet.",
            body = ErrorBody),
    ))]
async fn sandbox_answers(
    State(state): State<AppState>,
    auth: Auth,
    IdPath(person_id): IdPath<PersonId>,
) -> Result<Json<Success<SandboxAnswers>>, ApiError> {
    if state.environment() != Environment::Sandbox {
        return Err(ApiError::not_found("sandbox helpers exist only in the sandbox environment"));
    }
    owned_person(&state, auth.subscriber_id, person_id).await?;
    let latest = state.db.latest_question_set(person_id).await?.ok_or_else(|| {
        ApiError::not_found("no questions were issued to this person yet: call POST /persons/authenticate first")
    })?;
    let answers = stored_questions(&latest)?
        .iter()
        .enumerate()
        .map(|(position, question)| {
            let question_id = question_id(latest.id, position);
            Answer { question_id, choice_id: choice_id(question_id, question.correct) }
        })
        .collect();
    Ok(Json(Success::new(SandboxAnswers { answers })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_topic_asked_again_keeps_the_choices_it_was_first_asked_with() {
        let question = |text: &str, choices: [&str; 2], correct: usize| IssuedQuestion {
            text: text.to_owned(),
            choices: choices.iter().map(|choice| (*choice).to_owned()).collect(),
            correct,
        };
        let earlier = [question("streets?", ["Oak Street", "Elm Road"], 1), question("cars?", ["Civic", "Golf"], 0)];
        let fresh = vec![question("streets?", ["Pine Lane", "Elm Road"], 1), question("lenders?", ["A", "B"], 0)];
        let kept = keep_earlier_choices(fresh, &earlier);
        assert_eq!(kept[0], earlier[0], "the same choices, order and right answer as first asked");
        assert_eq!(kept[1], question("lenders?", ["A", "B"], 0), "a topic not asked before is new");
    }

    #[test]
    fn scoring_needs_every_question_once_with_its_own_choices() {
        let issued: Vec<IssuedQuestion> = (0..4)
            .map(|_| IssuedQuestion {
                text: "q".to_owned(),
                choices: (0..5).map(|choice| choice.to_string()).collect(),
                correct: 1,
            })
            .collect();
        let right = |position: usize| {
            let question_id = question_id(QuestionSetId(7), position);
            Answer { question_id, choice_id: choice_id(question_id, 1) }
        };
        let wrong = |position: usize| {
            let question_id = question_id(QuestionSetId(7), position);
            Answer { question_id, choice_id: choice_id(question_id, 4) }
        };
        assert_eq!(score(QuestionSetId(7), &issued, &[right(0), right(1), right(2), wrong(3)]).expect("valid"), 3);
        assert_eq!(score(QuestionSetId(7), &issued, &[wrong(0), right(1), wrong(2), right(3)]).expect("valid"), 2);
        assert!(score(QuestionSetId(7), &issued, &[right(0), right(1), right(2)]).is_err(), "one missing");
        assert!(score(QuestionSetId(7), &issued, &[right(0), right(0), right(2), right(3)]).is_err(), "twice the same");
        let foreign = Answer {
            question_id: question_id(QuestionSetId(7), 0),
            choice_id: choice_id(question_id(QuestionSetId(7), 1), 1),
        };
        assert!(
            score(QuestionSetId(7), &issued, &[foreign, right(1), right(2), right(3)]).is_err(),
            "another question's choice"
        );
        assert!(score(QuestionSetId(8), &issued, &[right(0), right(1), right(2), right(3)]).is_err(), "another set");
    }
}
