//! Shape inference and verification of HLO instructions (cf. XLA `ShapeInference`, `HloVerifier`).
