//! The service layer: one async interface over engine, store and sources (being built);
//! `mapping` turns engine results into wire types.

pub mod mapping;
