//! The PBEBench generator (SPEC §4).
