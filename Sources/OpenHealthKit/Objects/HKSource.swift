import Foundation

/// An app or device that saves samples (HealthKit's `HKSource`).
///
/// Sources are equal when their bundle identifiers are equal.
public final class HKSource: NSObject, @unchecked Sendable {
    /// The source's display name.
    public let name: String
    /// The source's bundle identifier, the key the store indexes sources by.
    public let bundleIdentifier: String

    /// Creates a source. HealthKit apps never create sources; servers and tools do.
    public init(name: String, bundleIdentifier: String) {
        self.name = name
        self.bundleIdentifier = bundleIdentifier
    }

    /// The source of the running process: `OPENHEALTHKIT_BUNDLE_IDENTIFIER` and
    /// `OPENHEALTHKIT_SOURCE_NAME` when set, otherwise `org.openhealthkit.<process name>`.
    public class func `default`() -> HKSource {
        processSource
    }

    /// Read once: every sample an app creates starts with this source, and reading the
    /// process environment is costly on Linux.
    private static let processSource: HKSource = {
        let environment = ProcessInfo.processInfo.environment
        let process = ProcessInfo.processInfo.processName
        let bundle = environment["OPENHEALTHKIT_BUNDLE_IDENTIFIER"] ?? "org.openhealthkit.\(process)"
        return HKSource(name: environment["OPENHEALTHKIT_SOURCE_NAME"] ?? process, bundleIdentifier: bundle)
    }()

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? HKSource)?.bundleIdentifier == bundleIdentifier
    }

    public override var hash: Int { bundleIdentifier.hashValue }

    public override var description: String { "\(name) (\(bundleIdentifier))" }
}

/// A source at a given version, on a given product and OS (HealthKit's `HKSourceRevision`).
public final class HKSourceRevision: NSObject, @unchecked Sendable {
    /// The app or device.
    public let source: HKSource
    /// The source's version string.
    public let version: String?
    /// The product type, e.g. "iPhone15,2" or "Linux".
    public let productType: String?
    /// The operating system version.
    public let operatingSystemVersion: OperatingSystemVersion

    /// Creates a revision.
    public init(source: HKSource, version: String?, productType: String?, operatingSystemVersion: OperatingSystemVersion) {
        self.source = source
        self.version = version
        self.productType = productType
        self.operatingSystemVersion = operatingSystemVersion
    }

    /// Creates a revision with the running system's product type and OS version.
    public convenience init(source: HKSource, version: String?) {
        self.init(source: source, version: version, productType: Self.currentProductType,
                  operatingSystemVersion: ProcessInfo.processInfo.operatingSystemVersion)
    }

    static var currentProductType: String {
        #if os(Linux)
        return "Linux"
        #else
        return "Darwin"
        #endif
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKSourceRevision else { return false }
        return other.source == source && other.version == version && other.productType == productType
            && other.operatingSystemVersion.majorVersion == operatingSystemVersion.majorVersion
            && other.operatingSystemVersion.minorVersion == operatingSystemVersion.minorVersion
            && other.operatingSystemVersion.patchVersion == operatingSystemVersion.patchVersion
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(source.bundleIdentifier)
        hasher.combine(version)
        return hasher.finalize()
    }
}

/// HealthKit's version string constant for revisions with no version.
public let HKSourceRevisionAnyVersion = "HKSourceRevisionAnyVersion"
/// HealthKit's product type constant meaning any product type.
public let HKSourceRevisionAnyProductType = "HKSourceRevisionAnyProductType"
/// HealthKit's operating system version meaning any version (0.0.0). `predicateForObjects(from:)`
/// with revisions matches their bundle identifier, version and product type; every operating
/// system version matches, as this constant asks.
public let HKSourceRevisionAnyOperatingSystem = OperatingSystemVersion(majorVersion: 0, minorVersion: 0, patchVersion: 0)
