//! Identity verification: onboard, authenticate (questions), verify (answers), read.

use subscriber_protocol::{
    AuthenticatePersonRequest, AuthenticatePersonResponse, OnboardPersonRequest, OnboardPersonResponse, Person,
    VerifyPersonRequest, VerifyPersonResponse,
};

use crate::client::Client;
use crate::error::Result;
use crate::routes;
use crate::transport::Call;
use crate::validate;

/// `GET /persons` (the service's extension; decoded here until the wire type lands in the
/// protocol crate).
#[derive(serde::Deserialize)]
struct PersonList {
    persons: Vec<Person>,
}

impl Client {
    /// `POST /persons`: step 1, a person to verify.
    pub async fn onboard_person(&self, person: &OnboardPersonRequest) -> Result<OnboardPersonResponse> {
        validate::onboard_person(person)?;
        self.inner.call(Call::new(&routes::ONBOARD_PERSON, "/persons").json(person)?).await
    }

    /// `POST /persons/authenticate`: step 2, four questions (valid 10 minutes) from the person's
    /// details. Not retried by the client: a repeat issues new questions.
    pub async fn authenticate_person(&self, request: &AuthenticatePersonRequest) -> Result<AuthenticatePersonResponse> {
        validate::authenticate_person(request)?;
        self.inner.call(Call::new(&routes::AUTHENTICATE_PERSON, "/persons/authenticate").json(request)?).await
    }

    /// `POST /persons/verify`: step 3, the answers; 3 of 4 right verify the person and unlock the
    /// signals. Never retried by the client: each call uses up an attempt.
    pub async fn verify_person(&self, request: &VerifyPersonRequest) -> Result<VerifyPersonResponse> {
        validate::verify_person(request)?;
        self.inner.call(Call::new(&routes::VERIFY_PERSON, "/persons/verify").json(request)?).await
    }

    /// `GET /persons`: the caller's persons, newest first.
    pub async fn persons(&self) -> Result<Vec<Person>> {
        let list: PersonList = self.inner.call(Call::new(&routes::PERSONS, "/persons")).await?;
        Ok(list.persons)
    }

    /// `GET /persons/{person_id}`: status, and the signals once verified.
    pub async fn person(&self, person_id: i64) -> Result<Person> {
        validate::positive_id("personId", person_id)?;
        self.inner.call(Call::new(&routes::PERSON, format!("/persons/{person_id}"))).await
    }
}
