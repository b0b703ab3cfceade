//! Shared test support. Include with `mod support;` from a test crate.
#![allow(dead_code)]

pub mod fake_model;
pub mod openclaw_gateway;
