//! What the sandbox makes up, kept apart from the product's rules: card histories of 36 months
//! over the merchant directory ([`history`]), the synthetic identities behind identity
//! questions ([`identity`]), and what the sandbox banks hold for a linked account ([`bank`]).
//! Each is made deterministically from the sandbox seed, never from a real person's data.
//!
//! The other simulations are where their data lives: the directory's generator
//! (`directory::generate`) and the point-of-sale simulator (`sandbox::simulator`).

pub mod bank;
pub mod history;
pub mod identity;
