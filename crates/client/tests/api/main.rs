//! The client against the real service (in-process, port 0, temporary database), and against
//! small stub servers for the faults the real service cannot produce.

mod coverage;
mod directory;
mod errors;
mod faults;
mod paging;
mod streams;
mod tokens;
