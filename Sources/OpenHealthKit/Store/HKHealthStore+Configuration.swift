import CommonSupport
import Foundation

extension HKHealthStore {
    /// How a store is opened: where, with which key, as whom, and who decides authorization.
    /// This is OpenHealthKit API; `HKHealthStore()` uses ``default``.
    public struct Configuration: Sendable {
        /// Who is using the store.
        public enum Role: Sendable, Hashable {
            /// An app, bound by per-type authorization as in HealthKit.
            case app
            /// The person who owns the store (the `health` CLI): reads and writes every type,
            /// deletes any object, and sets characteristics.
            case owner
        }

        /// Where the data lives.
        public var location: Location
        /// The key that seals records; nil means ``StoreKey`` from the environment
        /// (`OPENHEALTHKIT_PASSPHRASE`, `OPENHEALTHKIT_KEY_FILE`, or `health.key` beside the database).
        public var key: StoreKey?
        /// The source saves are recorded under, and the identity authorization is kept for.
        public var source: HKSource
        /// The source's version.
        public var sourceVersion: String?
        /// App or owner.
        public var role: Role
        /// Decides `requestAuthorization(toShare:read:)`.
        public var authorizationProvider: any AuthorizationProvider
        /// How long deletions are remembered for anchored queries (default 90 days). Anchors
        /// older than that fail with `HealthStoreError.anchorExpired`.
        public var tombstoneRetention: TimeInterval
        /// Where the store reads the time: when a sample is saved or deleted, when a deletion is
        /// old enough to forget, when an authorization or a share is recorded. The system clock
        /// by default; tests pass a clock they move instead of waiting.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        public init(location: Location = .defaultLocation, key: StoreKey? = nil, source: HKSource = .default(),
                    sourceVersion: String? = nil, role: Role = .app,
                    authorizationProvider: any AuthorizationProvider = OwnerConsentAuthorizationProvider(),
                    tombstoneRetention: TimeInterval = 90 * 86_400, now: @escaping @Sendable () -> Date = { Date() }) {
            self.location = location
            self.key = key
            self.source = source
            self.sourceVersion = sourceVersion
            self.role = role
            self.authorizationProvider = authorizationProvider
            self.tombstoneRetention = tombstoneRetention
            self.now = now
        }

        /// The per-user default store for an app.
        public static var `default`: Configuration { Configuration() }
    }

    /// Where a store keeps its data.
    public enum Location: Sendable {
        /// An SQLite database file (created when missing, with its folder).
        case file(URL)
        /// A private in-memory database, gone when the store is released.
        case inMemory

        /// `OPENHEALTHKIT_STORE` when set, else `$XDG_DATA_HOME/openhealthkit/health.sqlite` when
        /// `XDG_DATA_HOME` is an absolute path, else `$HOME/.local/share/openhealthkit/health.sqlite`
        /// (`HOME` as the environment gives it; the account's home directory only when it is unset).
        public static var defaultLocation: Location {
            let environment = ProcessInfo.processInfo.environment
            if let path = environment["OPENHEALTHKIT_STORE"], !path.isEmpty {
                return .file(URL(fileURLWithPath: path))
            }
            let base = UserDirectories.dataHome(environment: environment)
            return .file(base.appendingPathComponent("openhealthkit/health.sqlite"))
        }

        var databaseLocation: HealthDatabase.Location {
            switch self {
            case .file(let url): return .file(url)
            case .inMemory: return .inMemory
            }
        }
    }
}
