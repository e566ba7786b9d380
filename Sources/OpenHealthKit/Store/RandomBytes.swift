#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Random bytes from the kernel's CSPRNG, taken from a process-wide pool refilled 4 KiB at a time (`arc4random_buf` in
/// one call on Apple platforms; on Linux `getentropy`, which is `getrandom(2)` at most 256 bytes a call: the Glibc
/// module does not include `sys/random.h`, so `getrandom` itself cannot be called from Swift). Each byte of the pool is
/// handed out once and then zeroed; a request larger than the pool is filled straight from the kernel.
///
/// What it serves: the 74 random bits of every ``Foundation/UUID/timeOrdered()``, one or more per imported sample.
/// The 12-byte nonce of every AES-GCM seal (``RecordCipher``) is read from the kernel on its own (``fillFromKernel(_:)``,
/// one call): a nonce used twice under one key would give the key's authentication away, and only the kernel knows
/// when a virtual machine was cloned from a snapshot. Hand-written because no package the project uses gives bulk
/// CSPRNG bytes: swift-crypto's `AES.GCM.Nonce()` draws from `SystemRandomNumberGenerator`, which makes one `getrandom`
/// system call per 8 bytes (two per nonce, two more per UUID), about 1.5 s of kernel time in a two-year import of
/// 1.76 M records. The pool makes 16 calls per 4 KiB instead of 512.
///
/// The bytes are the kernel's own, not stretched by a generator of ours. The pool remembers the process it was
/// filled in: a child forked without exec drops the bytes it inherited instead of handing out its parent's.
enum RandomBytes {
    /// The pool's size in bytes.
    static let capacity = 4096

    private struct Pool: ~Copyable {
        var buffer = [UInt8](repeating: 0, count: RandomBytes.capacity)
        /// The first byte not handed out yet (`capacity` when all were).
        var next = RandomBytes.capacity
        /// The process the buffer was filled in.
        var process: pid_t = 0
    }

    private static let pool = Mutex(Pool())

    /// Fills `destination` with random bytes, each handed out by this pool once only.
    static func fill(_ destination: UnsafeMutableRawBufferPointer) {
        guard !destination.isEmpty else { return }
        guard destination.count <= capacity else {
            kernelFill(destination)
            return
        }
        let process = getpid()
        pool.withLock { pool in
            // Filled in the parent of this (forked) process: those bytes are the parent's.
            if pool.process != process {
                pool.next = capacity
                pool.process = process
            }
            var written = 0
            while written < destination.count {
                if pool.next == capacity {
                    pool.buffer.withUnsafeMutableBytes { kernelFill($0) }
                    pool.next = 0
                }
                let taken = min(destination.count - written, capacity - pool.next)
                let start = pool.next
                pool.buffer.withUnsafeMutableBytes { buffer in
                    let source = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + taken])
                    UnsafeMutableRawBufferPointer(rebasing: destination[written..<written + taken]).copyMemory(from: UnsafeRawBufferPointer(source))
                    _ = source.initializeMemory(as: UInt8.self, repeating: 0)
                }
                pool.next += taken
                written += taken
            }
        }
    }

    /// `count` random bytes.
    static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        bytes.withUnsafeMutableBytes { fill($0) }
        return bytes
    }

    /// Fills `destination` from the kernel's CSPRNG, in one call when it holds at most 256 bytes.
    static func fillFromKernel(_ destination: UnsafeMutableRawBufferPointer) {
        kernelFill(destination)
    }

    /// Fills `destination` from the kernel's CSPRNG.
    private static func kernelFill(_ destination: UnsafeMutableRawBufferPointer) {
        guard let base = destination.baseAddress else { return }
        #if canImport(Darwin)
        arc4random_buf(base, destination.count)
        #else
        var filled = 0
        while filled < destination.count {
            // getentropy takes at most 256 bytes, and retries getrandom itself when a signal interrupts it.
            let length = min(destination.count - filled, 256)
            if getentropy(base + filled, length) == 0 {
                filled += length
            } else if errno != EINTR {
                // No getrandom (a kernel before 3.17): the standard library's generator, which has its own fallback.
                var generator = SystemRandomNumberGenerator()
                for index in filled..<destination.count { destination[index] = generator.next() }
                filled = destination.count
            }
        }
        #endif
    }
}
