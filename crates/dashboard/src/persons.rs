//! Identity verification: onboard a person, check their personal information as the service
//! does, fetch the questions, send the answers; the persons and their signals.

use chrono::Utc;
use subscriber_protocol::rules;
use subscriber_protocol::{
    AuthenticatePersonRequest, AuthenticatePersonResponse, OnboardPersonRequest, Person, VerifyPersonRequest,
    VerifyPersonResponse,
};

use crate::app::Dashboard;
use crate::error::CommandError;
use crate::views::FieldErrors;

impl Dashboard {
    /// The caller's persons, newest first.
    pub async fn persons(&self) -> Result<Vec<Person>, CommandError> {
        Ok(self.client().await?.persons().await?)
    }

    pub async fn person(&self, person_id: i64) -> Result<Person, CommandError> {
        Ok(self.client().await?.person(person_id).await?)
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
