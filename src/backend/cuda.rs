//! Hopper CUDA backend (to be written).
