import Foundation
import Glibc

/// A child process for the tests, started with `posix_spawn`, with the part of Foundation's
/// `Process` the tests use (run, signal, wait, status).
///
/// Why not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` to find the highest
/// descriptor to close in the child, and swift-corelibs-foundation 6.3 copies 256 bytes of each
/// directory entry's name out of `readdir`'s buffer. With about 1,360 descriptors open, the last
/// entry of a buffer sits at its end and the copy reads past it: the test process dies of
/// SIGSEGV. The suite holds that many (stores, sockets and event loops of tests running side by
/// side). Why not swift-subprocess: it ties a child's life to a closure, and the tests keep servers
/// running across `await`s and stop them in `defer`. Here the child's descriptors above standard
/// error are closed by `posix_spawn` itself (`posix_spawn_file_actions_addclosefrom_np`).
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// The test process's own stream.
        case inherit
        /// `/dev/null`.
        case null
        /// One end of a pipe: the reading end for standard input, the writing end otherwise. The
        /// parent's copy of that end is closed once the child has started.
        case pipe(Pipe)
        /// An open file.
        case file(FileHandle)
    }

    /// How the child ended.
    public enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    /// Why a child could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        public var executable: String
        public var call: String
        public var errno: Int32
        public var description: String {
            "cannot start \(executable): \(call) failed: \(String(cString: strerror(errno)))"
        }
    }

    public var executableURL: URL?
    public var arguments: [String] = []
    /// The child's environment; nil inherits the test process's.
    public var environment: [String: String]?
    public var standardInput: Stream = .inherit
    public var standardOutput: Stream = .inherit
    public var standardError: Stream = .inherit

    private let condition = NSCondition()
    private var pid: pid_t = 0
    private var reaped = false
    private var status: Int32 = 0

    public init() {}

    /// The child's process id (0 before `run()`).
    public var processIdentifier: Int32 {
        condition.lock()
        defer { condition.unlock() }
        return pid
    }

    /// Starts the child. A thread of its own waits for it to end.
    public func run() throws {
        guard let executableURL else { throw LaunchError(executable: "nothing", call: "run", errno: EINVAL) }
        let path = executableURL.path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        try redirect(standardInput, to: 0, reading: true, &actions, path)
        try redirect(standardOutput, to: 1, reading: false, &actions, path)
        try redirect(standardError, to: 2, reading: false, &actions, path)
        guard let closeFrom = Self.addCloseFrom else {
            throw LaunchError(executable: path, call: "posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)", errno: ENOSYS)
        }
        let closeResult = closeFrom(&actions, 3)
        guard closeResult == 0 else { throw LaunchError(executable: path, call: "posix_spawn_file_actions_addclosefrom_np", errno: closeResult) }

        // The child starts with no signal blocked and every signal at its default action: a
        // test process may block or ignore some (SIGTERM, SIGPIPE), and both are inherited.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([path] + arguments).map { strdup($0) }
        let environment = (self.environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var spawned: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            (environment + [nil]).withUnsafeBufferPointer { environmentPointer in
                guard let argv = argvPointer.baseAddress, let environment = environmentPointer.baseAddress else { return EINVAL }
                return posix_spawn(&spawned, path, &actions, &attributes, argv, environment)
            }
        }
        guard result == 0 else { throw LaunchError(executable: path, call: "posix_spawn", errno: result) }
        let child = spawned
        condition.lock()
        pid = child
        condition.unlock()
        closeChildEnds()
        let waiter = Thread { [self] in awaitExit(child) }
        waiter.name = "ChildProcess \(child)"
        waiter.start()
    }

    /// Sends SIGTERM, unless the child has already been waited for.
    public func terminate() { signal(SIGTERM) }

    /// Sends SIGINT, unless the child has already been waited for.
    public func interrupt() { signal(SIGINT) }

    /// Sends `signal` to the child while it is still ours: its process id is not released (the
    /// child is not reaped) while the lock is held, so the signal cannot reach another process.
    public func signal(_ signal: Int32) {
        condition.lock()
        defer { condition.unlock() }
        guard pid > 0, !reaped else { return }
        kill(pid, signal)
    }

    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return pid > 0 && !reaped
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() {
        condition.lock()
        defer { condition.unlock() }
        while pid > 0, !reaped { condition.wait() }
    }

    /// The exit code, or the signal's number when the child was killed (valid after it ended).
    public var terminationStatus: Int32 {
        condition.lock()
        defer { condition.unlock() }
        return Self.exited(status) ? Self.exitCode(status) : status & 0x7f
    }

    public var terminationReason: TerminationReason {
        condition.lock()
        defer { condition.unlock() }
        return Self.exited(status) ? .exit : .uncaughtSignal
    }

    /// Waits for the child without reaping it (`WNOWAIT`), then reaps it under the lock, so
    /// `signal(_:)` never sends to a process id that has been released.
    private func awaitExit(_ child: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) == -1, errno == EINTR {}
        condition.lock()
        var raw: Int32 = 0
        while waitpid(child, &raw, 0) == -1, errno == EINTR {}
        status = raw
        reaped = true
        condition.broadcast()
        condition.unlock()
    }

    private func redirect(_ stream: Stream, to target: Int32, reading: Bool,
                          _ actions: inout posix_spawn_file_actions_t, _ path: String) throws {
        let result: Int32
        switch stream {
        case .inherit:
            return
        case .null:
            result = posix_spawn_file_actions_addopen(&actions, target, "/dev/null", reading ? O_RDONLY : O_WRONLY, 0)
        case .pipe(let pipe):
            let end = reading ? pipe.fileHandleForReading : pipe.fileHandleForWriting
            result = posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
        case .file(let handle):
            result = posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
        }
        guard result == 0 else { throw LaunchError(executable: path, call: "posix_spawn_file_actions (fd \(target))", errno: result) }
    }

    /// Closes the parent's copy of each pipe end the child now holds, so the parent reads EOF
    /// when the child exits, and the child sees EOF when the parent closes its writing end.
    private func closeChildEnds() {
        if case .pipe(let pipe) = standardInput { try? pipe.fileHandleForReading.close() }
        if case .pipe(let pipe) = standardOutput { try? pipe.fileHandleForWriting.close() }
        if case .pipe(let pipe) = standardError { try? pipe.fileHandleForWriting.close() }
    }

    private static func exited(_ status: Int32) -> Bool { status & 0x7f == 0 }
    private static func exitCode(_ status: Int32) -> Int32 { (status >> 8) & 0xff }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc declares `posix_spawn_file_actions_addclosefrom_np` only under `_GNU_SOURCE`, which
    /// Swift's Glibc module does not define; the symbol itself is there (glibc 2.34 and later).
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()
}
