//! Where the questions that prove a person's identity come from.
//!
//! The service keeps the rules: it checks the personal information, stores each set with
//! its right answers, scores the answers, counts failures and locks, and keeps a topic's
//! choices fixed once asked (`persons::keep_earlier_choices`). A source only makes
//! questions from what it knows about the person.
//!
//! The sandbox's source is the synthetic identity (`identity`): made from the public
//! sandbox seed and the person id, so anyone can compute its answers. It is never used
//! outside the sandbox; there, until a real source (a credit bureau's knowledge-based
//! questions) is configured, `POST /persons/authenticate` answers 501 `not_configured`.

use std::sync::Arc;
use subscriber_protocol::PersonId;

use subscriber_protocol::{AuthenticatePersonRequest, Environment};

use crate::config::Config;
use crate::simulation::identity::{self, IssuedQuestion};

/// What a source is asked with. `information` is what the person typed: a source may
/// match on it but must not keep it (the service stores none of it).
pub struct Applicant<'a> {
    pub person_id: PersonId,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub information: &'a AuthenticatePersonRequest,
    /// Checked: the year of `information.date_of_birth`.
    pub birth_year: i32,
    pub this_year: i32,
    /// How many sets the person was issued before this one.
    pub set_number: u32,
}

/// A maker of identity questions. Called inside the person's write transaction, so issuing
/// a set and counting it are one step; a source that calls out over the network should
/// answer from a prepared set or keep its own deadline short.
pub trait IdentitySource: Send + Sync {
    /// `identity::QUESTIONS_PER_SET` questions, each with `identity::CHOICES_PER_QUESTION`
    /// choices, the last "None of the above". The same question text means the same topic.
    fn questions(&self, applicant: &Applicant<'_>) -> anyhow::Result<Vec<IssuedQuestion>>;
}

/// The synthetic identity of the sandbox.
pub struct SyntheticIdentity {
    pub seed: u64,
}

impl IdentitySource for SyntheticIdentity {
    fn questions(&self, applicant: &Applicant<'_>) -> anyhow::Result<Vec<IssuedQuestion>> {
        let who = identity::identity(self.seed, applicant.person_id, applicant.birth_year, applicant.this_year);
        Ok(identity::questions(self.seed, applicant.person_id, applicant.set_number, &who))
    }
}

/// The identity source of this environment: the synthetic one in the sandbox, none elsewhere
/// (no real source is configurable yet).
pub fn for_environment(config: &Config) -> Option<Arc<dyn IdentitySource>> {
    match config.environment {
        Environment::Sandbox => Some(Arc::new(SyntheticIdentity { seed: config.sandbox_seed })),
        Environment::Expansion | Environment::Established => None,
    }
}
