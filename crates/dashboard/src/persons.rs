//! Identity verification: onboard a person, check their personal information as the service
//! does, fetch the questions, send the answers; the persons and their signals.

use chrono::Utc;
use subscriber_protocol::rules;
use subscriber_protocol::{
    AuthenticatePersonRequest, AuthenticatePersonResponse, ObjectId, OnboardPersonRequest, Person, PersonId,
    RemovePersonResponse, VerifyPersonRequest, VerifyPersonResponse,
};

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::views::FieldErrors;
use crate::views::SecurePage;

impl Dashboard {
    /// The caller's persons, newest first.
    pub async fn persons(&self) -> Result<Vec<Person>, CommandError> {
        Ok(self.client().await?.persons().await?)
    }

    pub async fn person(&self, person_id: PersonId) -> Result<Person, CommandError> {
        Ok(self.client().await?.person(person_id).await?)
    }

    /// Removes a person: their answers and signals are erased.
    pub async fn remove_person(&self, person_id: PersonId) -> Result<RemovePersonResponse, CommandError> {
        Ok(self.client().await?.remove_person(person_id).await?)
    }

    /// A one-time identity page for the person to verify themselves on their own device
    /// (`POST /persons/{id}/session`): the caller shows, copies or opens its `url`.
    pub async fn person_page(&self, person_id: PersonId) -> Result<SecurePage, CommandError> {
        let session = self.client().await?.create_person_session(person_id, None).await?;
        self.check_own_url(&session.url).await?;
        Ok(SecurePage {
            id: ObjectId(session.session_id.get()),
            qr_code: crate::views::qr_modules(&session.url),
            url: session.url,
            expires_at: session.expires_at,
            opened: false,
            open_problem: None,
        })
    }

    /// Step 1: a person to verify; returns them as the service has them.
    pub async fn onboard_person(&self, person: OnboardPersonRequest) -> Result<Person, CommandError> {
        let client = self.client().await?;
        let onboarded = client.onboard_person(&person).await?;
        Ok(client.person(onboarded.person_id).await?)
    }

    /// The personal information checked by the service's own rules, every field error at once
    /// (fields named `dateOfBirth`, `address.zip`, `phoneNumber`...).
    pub fn check_personal_info(&self, information: &AuthenticatePersonRequest) -> FieldErrors {
        rules::persons::information(information, Utc::now().date_naive())
            .err()
            .map(rules::Violations::into_details)
            .unwrap_or_default()
    }

    /// Step 2: the four questions, valid for ten minutes. Never repeated by the app: a repeat
    /// issues other questions.
    pub async fn authenticate_person(
        &self,
        information: AuthenticatePersonRequest,
    ) -> Result<AuthenticatePersonResponse, CommandError> {
        Ok(self.client().await?.authenticate_person(&information).await?)
    }

    /// Step 3: the answers, once. Three of four right verify the person (with the signals);
    /// fewer use up an attempt, and the third failure locks the person.
    pub async fn verify_person(&self, answers: VerifyPersonRequest) -> Result<VerifyPersonResponse, CommandError> {
        Ok(self.client().await?.verify_person(&answers).await?)
    }
}
