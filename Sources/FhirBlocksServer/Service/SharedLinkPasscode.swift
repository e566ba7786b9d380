import CommonSupport
import Crypto
import CryptoExtras
import Dispatch

/// A SMART Health Link's passcode as the server keeps it: scrypt (memory-hard) with a random
/// salt per link, encoded with its parameters as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`
/// (base64url), so stronger parameters can come later without breaking stored links. Hashing and
/// checking run on a Dispatch thread: scrypt takes tens of milliseconds of CPU and 16 MiB, which
/// must not hold one of Swift's cooperative threads.
enum SharedLinkPasscode {
    /// log2 of scrypt's cost `N` (2^14: 16 MiB with `r` = 8).
    static let logRounds = 14
    /// scrypt's block size `r`.
    static let blockSize = 8
    /// scrypt's parallelism `p`.
    static let parallelism = 1
    /// The salt's length in bytes.
    static let saltByteCount = 16
    /// The derived hash's length in bytes.
    static let hashByteCount = 32

    /// Hashes `passcode` with a fresh salt, off the cooperative pool.
    static func hash(_ passcode: String) async -> String? {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let (logRounds, blockSize, parallelism) = (Self.logRounds, Self.blockSize, Self.parallelism)
        guard let derived = await offPool({ derive(passcode, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism) }) else {
            return nil
        }
        return "scrypt$\(logRounds)$\(blockSize)$\(parallelism)$\(Base64URL.encode(salt))$\(Base64URL.encode(derived))"
    }

    /// Whether `passcode` is the one `stored` was made from (false for a stored text that does
    /// not read), compared in constant time, off the cooperative pool.
    static func matches(_ passcode: String, stored: String) async -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt", let logRounds = Int(parts[1]), (10...20).contains(logRounds),
              let blockSize = Int(parts[2]), (1...16).contains(blockSize), let parallelism = Int(parts[3]), (1...4).contains(parallelism),
              let salt = try? Base64URL.decode(String(parts[4])), let expected = try? Base64URL.decode(String(parts[5])), !expected.isEmpty else {
            return false
        }
        guard let derived = await offPool({ derive(passcode, salt: salt, logRounds: logRounds, blockSize: blockSize, parallelism: parallelism,
                                                   byteCount: expected.count) }),
              derived.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(derived, expected) { difference |= left ^ right }
        return difference == 0
    }

    private static func derive(_ passcode: String, salt: [UInt8], logRounds: Int, blockSize: Int, parallelism: Int,
                               byteCount: Int = hashByteCount) -> [UInt8]? {
        guard let key = try? KDF.Scrypt.deriveKey(from: Array(passcode.utf8), salt: salt, outputByteCount: byteCount, rounds: 1 << logRounds,
                                                  blockSize: blockSize, parallelism: parallelism) else { return nil }
        return key.withUnsafeBytes { Array($0) }
    }

    /// Runs `work` on a Dispatch thread, the calling task suspended until it is done.
    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}
