//! Exact CPU backend (to be written).
