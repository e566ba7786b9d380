import FhirBlocksStore
import PostgresNIO

/// Turns postgres-nio's errors into ``TrustStoreError/unavailable(_:)`` reasons that name the
/// failure (connection, SQLSTATE, timeout) and never carry the server's message text, which
/// can quote the values of a failed statement.
enum PostgresErrorMapping {
    /// The SQLSTATE of a unique-constraint violation.
    static let uniqueViolation = "23505"
    /// The SQLSTATE of a statement stopped by `statement_timeout` (or a cancel request).
    static let queryCanceled = "57014"

    /// The SQLSTATE of a server error, looking through transaction wrappers.
    static func sqlState(of error: any Error) -> String? {
        if let transaction = error as? PostgresTransactionError {
            for inner in [transaction.closureError, transaction.beginError, transaction.commitError] {
                if let inner, let state = sqlState(of: inner) { return state }
            }
            return nil
        }
        guard let psql = error as? PSQLError, psql.code == .server else { return nil }
        return psql.serverInfo?[.sqlState]
    }

    /// The store error for any failure of an operation.
    static func storeError(_ error: any Error, timeout: Duration) -> TrustStoreError {
        if let storeError = error as? TrustStoreError { return storeError }
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return storeError(inner, timeout: timeout)
            }
            return .unavailable("transaction failed")
        }
        if error is LeaseTimedOut { return .unavailable("no connection within \(timeout.components.seconds) s") }
        if error is CancellationError { return .unavailable("cancelled") }
        if let psql = error as? PSQLError {
            switch psql.code {
            case .server:
                let state = psql.serverInfo?[.sqlState] ?? "unknown"
                return .unavailable("server error SQLSTATE \(state)")
            case .connectionError: return .unavailable("cannot connect")
            case .poolClosed, .clientClosedConnection: return .unavailable("store closed")
            case .serverClosedConnection, .uncleanShutdown: return .unavailable("connection lost")
            case .queryCancelled: return .unavailable("query cancelled")
            case .sslUnsupported, .failedToAddSSLHandler: return .unavailable("TLS failed")
            case .unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError: return .unavailable("authentication failed")
            default: return .unavailable("protocol error \(psql.code)")
            }
        }
        return .unavailable("\(type(of: error))")
    }
}
