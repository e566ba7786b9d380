import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Long work started from a page (an import of many files, a re-check of every card), run in the
/// background while the browser watches a progress page that refreshes itself (no script).
public final class WebJobs: Sendable {
    /// How far a job is.
    public struct Progress: Sendable, Hashable {
        /// What the job does ("Importing 3 files").
        public var title: String
        /// Steps done.
        public var done: Int
        /// Steps in all.
        public var total: Int
        /// The page the job was started from (`/records`, `/cards`): its section in the navigation.
        public var origin: String
        /// The result page's content (HTML written by Swift code) once the job has ended.
        var result: String?
        /// A line above the result.
        var notice: String?

        /// Whether the job has ended.
        public var isFinished: Bool { result != nil }
    }

    /// What a job's work reports its progress through.
    public struct Reporter: Sendable {
        let jobs: WebJobs
        let id: String

        /// Sets how many steps are done.
        public func done(_ count: Int) {
            jobs.update(id) { $0.done = min(count, $0.total) }
        }

        /// Sets how many steps are done and how many there are in all, for work that learns its
        /// size as it goes (an import knows how many resources it stores once it has read its files).
        public func done(_ count: Int, of total: Int) {
            jobs.update(id) { progress in
                progress.total = max(total, 1)
                progress.done = min(max(count, 0), progress.total)
            }
        }
    }

    private struct State {
        var jobs: [String: Progress] = [:]
        var order: [String] = []
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    /// The most jobs remembered; the oldest finished ones are forgotten first.
    static let capacity = 64
    private let state = Mutex(State())
    /// Serial jobs (imports, which take memory in proportion to their upload) run one at a time.
    private let serialGate = SerialGate()

    /// An empty registry.
    public init() {}

    /// Starts `work` in the background and returns the job's identifier (for `/jobs/ID`).
    /// - Parameters:
    ///   - title: what the job does, shown on its page.
    ///   - total: how many steps it has (``Reporter/done(_:)`` counts them).
    ///   - origin: the page it was started from (`/records`, `/cards`).
    ///   - serial: whether the job waits for the serial jobs before it (an import: however many
    ///     uploads arrive at once, one is parsed and stored at a time, and the memory it freed is
    ///     handed back to the system when it ends).
    ///   - work: the work; it returns the result page's content (HTML that Swift code wrote, every
    ///     value escaped) and a notice shown above it.
    public func start(title: String, total: Int, origin: String, serial: Bool = false,
               work: @escaping @Sendable (Reporter) async -> (content: String, notice: String?)) -> String {
        let id = WebSession.randomToken()
        state.withLock { state in
            state.jobs[id] = Progress(title: title, done: 0, total: max(total, 1), origin: origin)
            state.order.append(id)
            while state.order.count > Self.capacity,
                  let oldest = state.order.firstIndex(where: { state.jobs[$0]?.isFinished == true }) {
                state.jobs[state.order.remove(at: oldest)] = nil
            }
        }
        let reporter = Reporter(jobs: self, id: id)
        Task.detached {
            if serial { await self.serialGate.enter() }
            let (content, notice) = await work(reporter)
            if serial {
                Self.returnFreedMemory()
                await self.serialGate.leave()
            }
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                if var job = state.jobs[id] {
                    job.done = job.total
                    job.result = content
                    job.notice = notice
                    state.jobs[id] = job
                }
                return state.waiters.removeValue(forKey: id) ?? []
            }
            for waiter in waiters { waiter.resume() }
        }
        return id
    }

    /// A job's progress, or nil for an unknown identifier.
    public func progress(of id: String) -> Progress? {
        state.withLock { $0.jobs[id] }
    }

    /// Returns once the job has ended (at once for an unknown or finished one).
    public func waitUntilFinished(_ id: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard let job = state.jobs[id], !job.isFinished else { return true }
                state.waiters[id, default: []].append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Hands the heap's free pages back to the system (glibc keeps them otherwise): glibc's
    /// `malloc_trim`, looked up at run time (Swift's Glibc module does not import malloc.h).
    private static func returnFreedMemory() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> CInt
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    private func update(_ id: String, _ change: (inout Progress) -> Void) {
        state.withLock { state in
            guard var job = state.jobs[id] else { return }
            change(&job)
            state.jobs[id] = job
        }
    }
}

/// One serial job at a time, the others waiting in order.
private actor SerialGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
