import Foundation

/// The error HealthKit's own APIs report, with HealthKit's codes and numbering.
///
/// Code ported from HealthKit can `catch let error as HKError` and switch on `error.code`
/// exactly as on Apple's platforms. The message never contains patient data: it names the
/// operation, the type identifier or the store path, never a value or metadata.
public struct HKError: Error, Sendable, Hashable, CustomStringConvertible {
    /// HealthKit's error codes (`HKError.Code`), with Apple's raw values.
    public enum Code: Int, Sendable, Hashable {
        case noError = 0
        case errorHealthDataUnavailable = 1
        case errorHealthDataRestricted = 2
        case errorInvalidArgument = 3
        case errorAuthorizationDenied = 4
        case errorAuthorizationNotDetermined = 5
        case errorDatabaseInaccessible = 6
        case errorUserCanceled = 7
        case errorAnotherWorkoutSessionStarted = 8
        case errorUserExitedWorkoutSession = 9
        case errorRequiredAuthorizationDenied = 10
        case errorNoData = 11
        case errorWorkoutActivityNotAllowed = 12
        case errorDataSizeExceeded = 13
        case errorBackgroundWorkoutSessionNotAllowed = 14
        case errorNotPermissibleForGuestUserMode = 15

        /// HealthKit's name for code 0 since iOS 18 (`noError` before): the same code.
        public static var unknownError: Code { .noError }
    }

    /// The HealthKit error code.
    public let code: Code
    /// A human-readable reason, free of patient data.
    public let message: String

    /// Creates an error with a code and a reason.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Creates an error with a code, as HealthKit's `HKError(_:userInfo:)`; the reason is
    /// `NSLocalizedDescriptionKey` from `userInfo` when given.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.init(code, userInfo[NSLocalizedDescriptionKey] as? String ?? "\(code)")
    }

    public var description: String { "HKError(\(code)): \(message)" }
    /// Mirrors `NSError.localizedDescription`.
    public var localizedDescription: String { message }

    // HealthKit exposes the codes as static members of HKError too (`HKError.errorNoData`).
    public static let unknownError = Code.unknownError
    public static let noError = Code.noError
    public static let errorHealthDataUnavailable = Code.errorHealthDataUnavailable
    public static let errorHealthDataRestricted = Code.errorHealthDataRestricted
    public static let errorAnotherWorkoutSessionStarted = Code.errorAnotherWorkoutSessionStarted
    public static let errorUserExitedWorkoutSession = Code.errorUserExitedWorkoutSession
    public static let errorWorkoutActivityNotAllowed = Code.errorWorkoutActivityNotAllowed
    public static let errorDataSizeExceeded = Code.errorDataSizeExceeded
    public static let errorBackgroundWorkoutSessionNotAllowed = Code.errorBackgroundWorkoutSessionNotAllowed
    public static let errorNotPermissibleForGuestUserMode = Code.errorNotPermissibleForGuestUserMode
    public static let errorInvalidArgument = Code.errorInvalidArgument
    public static let errorAuthorizationDenied = Code.errorAuthorizationDenied
    public static let errorAuthorizationNotDetermined = Code.errorAuthorizationNotDetermined
    public static let errorDatabaseInaccessible = Code.errorDatabaseInaccessible
    public static let errorNoData = Code.errorNoData
    public static let errorUserCanceled = Code.errorUserCanceled
    public static let errorRequiredAuthorizationDenied = Code.errorRequiredAuthorizationDenied
}

/// Lets `catch HKError.errorNoData` style pattern matching work on codes.
public func ~= (code: HKError.Code, error: any Error) -> Bool {
    (error as? HKError)?.code == code
}

extension HKError: CustomNSError {
    /// HealthKit's error domain, so `(error as NSError).domain == HKErrorDomain`.
    public static var errorDomain: String { HKErrorDomain }
    /// The HealthKit code.
    public var errorCode: Int { code.rawValue }
    /// The reason, as `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}

/// The domain string HealthKit uses for its `NSError`s.
public let HKErrorDomain = "com.apple.healthkit"
