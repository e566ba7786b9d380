import Foundation
import Testing
import TestSupport

/// Test data, committed under `Tests/Vectors` (see TestData in Tests/TestSupport).
enum Fixtures {
    static let skipReason: Comment = """
        shared SMART Health Card vectors not found: set OPENHEALTHKIT_SHARED or put shared/ beside \
        the repository (public source: github.com/smart-on-fhir/health-cards, docs/examples on the \
        gh-pages branch, and github.com/the-commons-project/vci-directory)
        """

    /// The committed vectors (`Tests/Vectors`, see TestData).
    static let sharedRoot: URL? = TestData.vectors

    /// The folder holding `Package.swift`.
    static let repositoryRoot: URL? = TestData.repositoryRoot

    static var available: Bool { sharedRoot != nil }

    static var shc: URL { (sharedRoot ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("vectors/shc") }
    static var specExamples: URL { shc.appendingPathComponent("spec-examples") }
    static var legacyExamples: URL { specExamples.appendingPathComponent("legacy-2023-02-types") }
    static var vciDirectory: URL { shc.appendingPathComponent("vci-directory") }

    static let specIssuer = "https://spec.smarthealth.cards/examples/issuer"
    static let kid0 = "3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s"
    static let kid2 = "EBKOr72QQDcTBUuVzAzkfBTGew0ZA16GuWty64nS-sw"

    static func bytes(_ url: URL) throws -> [UInt8] {
        Array(try Data(contentsOf: url))
    }

    static func text(_ url: URL) throws -> String {
        String(decoding: try bytes(url), as: UTF8.self)
    }

    /// `example-NN-<suffix>` in the current or legacy set.
    static func example(_ number: Int, _ suffix: String, legacy: Bool = false) -> URL {
        (legacy ? legacyExamples : specExamples).appendingPathComponent(String(format: "example-%02d-%@", number, suffix))
    }
}
