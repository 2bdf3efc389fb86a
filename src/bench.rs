//! Benchmark and check driver (to be written).
