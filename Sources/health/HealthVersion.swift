/// The version of `health`, written here and nowhere else: `health --version` prints it, and
/// scripts/package-deb.sh reads it from there to name the Debian package.
enum HealthVersion {
    /// The release number (semantic versioning).
    static let number = "0.9.0"

    /// What `health --version` prints: the number and the commit the binary was built from
    /// (`buildCommit`, written before every build by the BuildCommit plugin), as in
    /// `health 0.9.0 (commit 77fe566)`.
    static let text = "health \(number) (commit \(buildCommit))"
}
