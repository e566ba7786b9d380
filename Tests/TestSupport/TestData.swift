import Foundation
import Testing

/// Where tests find their data.
///
/// - ``vectors``: the small public vector sets (SMART Health Cards examples, the VCI directory,
///   FHIR R4 and DSTU2 examples, Synthea patients), committed under `Tests/Vectors` in the layout
///   of `../shared`, so a clean clone has them. `OPENHEALTHKIT_SHARED` points the tests at another
///   copy of that layout.
/// - ``shared``: the team's `../shared` folder beside the repository (or `OPENHEALTHKIT_SHARED`),
///   for what is too large to commit: the FHIR R4 definitions package. Nil when absent; the tests
///   that need it are then skipped with ``sharedMissing``.
public enum TestData {
    /// The repository root (the folder holding `Package.swift`), found from this file.
    public static let repositoryRoot: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) { return folder }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }()

    /// The environment's override, when it names a folder.
    private static let override: URL? = {
        guard let path = ProcessInfo.processInfo.environment["OPENHEALTHKIT_SHARED"], !path.isEmpty else { return nil }
        return URL(fileURLWithPath: path)
    }()

    /// The small vector sets: `OPENHEALTHKIT_SHARED` when set, else `Tests/Vectors`.
    public static let vectors: URL = override ?? repositoryRoot.appendingPathComponent("Tests/Vectors")

    /// `../shared` beside the repository, or `OPENHEALTHKIT_SHARED`; nil when neither exists.
    public static let shared: URL? = {
        let candidate = override ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// The SMART Health Cards examples.
    public static var specExamples: URL { vectors.appendingPathComponent("vectors/shc/spec-examples") }
    /// The VCI directory snapshot.
    public static var vciDirectory: URL { vectors.appendingPathComponent("vectors/shc/vci-directory") }
    /// The SMART Health Links vectors (health-cards-dev-tools' `testdata/shlink-*` and
    /// `shl-examples/`), always from the repository: `../shared` does not carry them.
    public static var shlinkVectors: URL { repositoryRoot.appendingPathComponent("Tests/Vectors/vectors/shlink") }
    /// The FHIR example folders (`r4-spec`, `dstu2-spec`, `synthea-r4`, `smart-health-cards`).
    public static var fhirExamples: URL { vectors.appendingPathComponent("fhir/examples") }

    /// The FHIR R4 definitions package (`hl7.fhir.r4.core` 4.0.1), when `../shared` has it.
    public static var r4Definitions: URL? {
        guard let package = shared?.appendingPathComponent("fhir/r4/hl7.fhir.r4.core-4.0.1/package"),
              FileManager.default.fileExists(atPath: package.path) else { return nil }
        return package
    }

    /// Why a test that needs ``shared`` was skipped.
    public static let sharedMissing = Comment(rawValue: """
        the FHIR R4 definitions package is not here: put the team's shared/ folder beside the repository \
        or set OPENHEALTHKIT_SHARED (hl7.fhir.r4.core 4.0.1, CC0, from hl7.org/fhir/R4/downloads.html)
        """)
}
