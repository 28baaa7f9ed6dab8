//! A newcomer's install: the installed binary alone (no source tree beside it) installs the
//! model and ONNX Runtime, and then finds them.

mod util;

#[test]
fn the_installed_binary_alone_installs_the_model() {
    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    util::copy_executable(std::path::Path::new(util::ZO), &bin.join("zo"));
    let cache = home.path().join("cache");
    let run = |args: &[&str], dir: &std::path::Path| {
        util::Run::from(
            std::process::Command::new(bin.join("zo"))
                .args(args)
                .current_dir(dir)
                .env("ZO_CACHE", &cache)
                .env_remove("ZO_MODEL_DIR")
                .env_remove("ORT_DYLIB_PATH")
                .env_remove("ZO_REPO")
                .output()
                .unwrap(),
        )
    };
    let r = util::Repo::init();
    let before = run(&["--json", "doctor"], r.path());
    assert!(
        before.stdout.contains("zo model install"),
        "doctor names the command: {}",
        before.stdout
    );
    let install = run(&["model", "install"], home.path());
    assert_eq!(install.code, 0, "{}{}", install.stdout, install.stderr);
    assert!(cache.join("models/all-MiniLM-L6-v2/model.onnx").is_file());
    let doctor = run(&["--json", "doctor"], r.path());
    assert_eq!(doctor.code, 0, "{}", doctor.stdout);
    let checks = doctor.json()["checks"].as_array().unwrap().clone();
    let embeddings = checks
        .iter()
        .find(|c| c["check"] == "embeddings")
        .expect("the model loads");
    assert_eq!(embeddings["ok"], true, "{embeddings}");
    // Installed: a second run is quick and changes nothing.
    let again = run(&["-q", "model", "install"], home.path());
    assert_eq!(again.code, 0);
    assert!(
        again.stdout.is_empty() && again.stderr.is_empty(),
        "{}{}",
        again.stdout,
        again.stderr
    );
}
