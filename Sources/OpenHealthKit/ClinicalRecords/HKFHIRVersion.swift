import Foundation

/// A FHIR release (HealthKit's `HKFHIRRelease`).
public struct HKFHIRRelease: RawRepresentable, Hashable, Sendable, Codable {
    /// The release's name.
    public let rawValue: String

    /// Creates a release from its name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// DSTU2 (1.0.x).
    public static let dstu2 = HKFHIRRelease(rawValue: "DSTU2")
    /// R4 (4.0.x).
    public static let r4 = HKFHIRRelease(rawValue: "R4")
    /// Any other version.
    public static let unknown = HKFHIRRelease(rawValue: "Unknown")
}

/// A FHIR version, `major.minor.patch` (HealthKit's `HKFHIRVersion`).
public final class HKFHIRVersion: NSObject, @unchecked Sendable {
    /// The major version (4 for R4).
    public let majorVersion: Int
    /// The minor version.
    public let minorVersion: Int
    /// The patch version.
    public let patchVersion: Int

    /// The release this version belongs to: 1.0.x is DSTU2, 4.0.x is R4, anything else unknown.
    public var fhirRelease: HKFHIRRelease {
        switch (majorVersion, minorVersion) {
        case (1, 0): return .dstu2
        case (4, 0): return .r4
        default: return .unknown
        }
    }

    /// The version as written: `"4.0.1"`.
    public var stringRepresentation: String { "\(majorVersion).\(minorVersion).\(patchVersion)" }

    /// Parses `major.minor.patch` (three non-negative integers), as HealthKit's
    /// `init(fromVersionString:)`.
    /// - Throws: `HKError.errorInvalidArgument` for anything else.
    public init(fromVersionString versionString: String) throws {
        let parts = versionString.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }),
              let major = Int(parts[0]), let minor = Int(parts[1]), let patch = Int(parts[2]) else {
            throw HKError(.errorInvalidArgument, "a FHIR version is major.minor.patch, e.g. 4.0.1")
        }
        majorVersion = major
        minorVersion = minor
        patchVersion = patch
        super.init()
    }

    /// The earlier spelling of ``init(fromVersionString:)``.
    @available(*, deprecated, renamed: "init(fromVersionString:)")
    public convenience init(fhirVersionString versionString: String) throws {
        try self.init(fromVersionString: versionString)
    }

    private init(major: Int, minor: Int, patch: Int) {
        majorVersion = major
        minorVersion = minor
        patchVersion = patch
        super.init()
    }

    /// DSTU2's primary version, 1.0.2.
    public class func primaryDSTU2() -> HKFHIRVersion { HKFHIRVersion(major: 1, minor: 0, patch: 2) }

    /// R4's primary version, 4.0.1.
    public class func primaryR4() -> HKFHIRVersion { HKFHIRVersion(major: 4, minor: 0, patch: 1) }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKFHIRVersion else { return false }
        return other.majorVersion == majorVersion && other.minorVersion == minorVersion && other.patchVersion == patchVersion
    }

    public override var hash: Int { stringRepresentation.hashValue }

    public override var description: String { stringRepresentation }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
