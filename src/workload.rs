//! Workload files and seeded inputs (to be written).
