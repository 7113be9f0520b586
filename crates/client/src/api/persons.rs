//! Identity verification: onboard, authenticate (questions), verify (answers), read.

use subscriber_protocol::{
    AuthenticatePersonRequest, AuthenticatePersonResponse, CreatePersonSessionRequest, EndUser, EndUserRemoved,
    Metadata, OnboardPersonRequest, OnboardPersonResponse, Person, PersonId, PersonSessionResponse,
    RemovePersonResponse, UpdateMetadataRequest, VerifyPersonRequest, VerifyPersonResponse,
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
        validate::labels(person.client_user_id.as_deref(), person.metadata.as_ref())?;
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
    pub async fn person(&self, person_id: PersonId) -> Result<Person> {
        validate::positive_id("personId", person_id)?;
        self.inner.call(Call::new(&routes::PERSON, format!("/persons/{person_id}"))).await
    }

    /// `POST /persons/{person_id}/session`: a one-time page where the person verifies their
    /// identity themselves (open `url` in their browser); `return_url` as `POST /card/session`
    /// takes it.
    pub async fn create_person_session(
        &self,
        person_id: PersonId,
        return_url: Option<&str>,
    ) -> Result<PersonSessionResponse> {
        validate::positive_id("personId", person_id)?;
        let body = CreatePersonSessionRequest { return_url: return_url.map(str::to_owned) };
        self.inner
            .call(Call::new(&routes::CREATE_PERSON_SESSION, format!("/persons/{person_id}/session")).json(&body)?)
            .await
    }

    /// `DELETE /persons/{person_id}`: the person, their answers and signals are erased.
    pub async fn remove_person(&self, person_id: PersonId) -> Result<RemovePersonResponse> {
        validate::positive_id("personId", person_id)?;
        self.inner.call(Call::new(&routes::REMOVE_PERSON, format!("/persons/{person_id}"))).await
    }

    /// `PATCH /persons/{person_id}`: sets notes on the person (keys merge; a key with "" is
    /// removed).
    pub async fn update_person(&self, person_id: PersonId, metadata: &Metadata) -> Result<Person> {
        validate::positive_id("personId", person_id)?;
        validate::metadata_patch(metadata)?;
        let body = UpdateMetadataRequest { metadata: metadata.clone() };
        self.inner.call(Call::new(&routes::UPDATE_PERSON, format!("/persons/{person_id}")).json(&body)?).await
    }

    /// `GET /users/{client_user_id}`: the cards, bank accounts and persons created with this
    /// `clientUserId`.
    pub async fn user(&self, client_user_id: &str) -> Result<EndUser> {
        validate::client_user_id(client_user_id)?;
        self.inner.call(Call::new(&routes::USER, user_path(client_user_id))).await
    }

    /// `DELETE /users/{client_user_id}`: erases all of them in one write.
    pub async fn remove_user(&self, client_user_id: &str) -> Result<EndUserRemoved> {
        validate::client_user_id(client_user_id)?;
        self.inner.call(Call::new(&routes::REMOVE_USER, user_path(client_user_id))).await
    }
}

/// `/users/{id}`, the id one path segment whatever it holds (`/`, `?`, spaces).
fn user_path(client_user_id: &str) -> String {
    let segment = percent_encoding::utf8_percent_encode(client_user_id, percent_encoding::NON_ALPHANUMERIC);
    format!("/users/{segment}")
}
