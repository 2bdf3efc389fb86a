//! The harness's backends: the CPU one through the `Backend` trait, with its
//! naive reference and size limit (the CUDA one is exercised by the GPU run
//! of the binary).

use pagedattn::backend::cpu;
use pagedattn_cli::backend::{Backend, CpuBench, Peaks, Reference};
use pagedattn_cli::bench::Options;
use pagedattn_cli::generate::edge_cases;

#[test]
fn cpu_backend_trait() {
    let be = CpuBench::new();
    assert_eq!(be.name(), "cpu");
    assert!(be.device().starts_with("CPU"), "{}", be.device());
    assert_eq!(be.peaks().unwrap(), Peaks::H200_DEFAULT);
    let w = edge_cases()
        .into_iter()
        .find(|w| w.name == "tile-boundaries")
        .unwrap();
    let inp = w.inputs(7);
    let mut prep = be.prepare(&inp.problem()).unwrap();
    drop(inp); // prepared inputs are owned
    let inp = w.inputs(7);
    let got = prep.run().unwrap();
    assert_eq!(got, cpu::attention(&inp.problem()).unwrap());
    let times = prep.time(1, 3).unwrap();
    assert_eq!(times.len(), 3);
    assert!(times.iter().all(|t| t.is_finite() && *t > 0.0), "{times:?}");

    let opts = Options::default();
    match be
        .reference(&inp.problem(), w.visible_pairs(), &opts)
        .unwrap()
    {
        Reference::Output { output, name } => {
            assert_eq!(name, "naive");
            assert!(pagedattn::check::compare(&got, &output).ok());
        }
        Reference::Unavailable(why) => panic!("{why}"),
    }
    let tight = Options {
        naive_max_pairs: 1,
        max_cpu_pairs: 1,
        ..opts
    };
    assert!(matches!(
        be.reference(&inp.problem(), w.visible_pairs(), &tight)
            .unwrap(),
        Reference::Unavailable(_)
    ));
    assert!(be
        .skip(w.visible_pairs(), &tight)
        .unwrap()
        .contains("--max-cpu-pairs"));
    assert!(be.skip(w.visible_pairs(), &Options::default()).is_none());
}
