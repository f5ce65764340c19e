//! The command's integration tests, one binary (`cargo test -p gpusat-cli
//! --test it`), under one module, `command` (see its docs).

#[path = "../../../tests/it/common/mod.rs"]
mod common;

mod command;
