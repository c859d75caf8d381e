//! The screening engine: normalisation, candidate index and explainable scoring.
