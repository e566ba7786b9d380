import Foundation

/// A task executor with one thread per active processor, for the batch benchmarks.
///
/// Why not the default global executor: on Linux, Swift's global concurrent executor is a
/// Dispatch queue as wide as the number of logical CPUs, and ordo-one/benchmark runs every async
/// benchmark by blocking one of those threads on a semaphore (`Benchmark.runAsync`) while the
/// benchmark's task runs. On a 2-core machine that leaves one thread for a task group: measured
/// on an idle 2-core machine, two CPU-bound child tasks took 0.19 s on a free default pool,
/// 0.38 s on the default pool with one thread blocked as the harness blocks it, and 0.19 s with
/// this executor. In a real program nothing blocks the pool, so the batch runs its task group with this
/// executor as the preferred one (`withTaskExecutorPreference`): every child task, and every
/// nonisolated async call inside it such as `SHCVerifier.verify`, runs on these threads, one
/// per core, as the default executor would run them in an unblocked process. Both sides of the
/// batch pair use it.
final class CoreExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = CoreExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    let threadCount: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var head = 0

    init(threads: Int) {
        threadCount = max(1, threads)
        for index in 0..<threadCount {
            let thread = Thread { [unowned self] in
                CoreExecutor.nameCurrentThread("core-executor-\(index)")
                self.work()
            }
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// The names of the threads that ran `parts` child tasks of a task group preferring this
    /// executor, each busy for a moment (a check that the batch really runs here, on every core).
    func threadNamesOfChildTasks(_ parts: Int) async -> Set<String> {
        await withTaskExecutorPreference(self) {
            await withTaskGroup(of: String.self) { group in
                for _ in 0..<parts {
                    group.addTask {
                        let deadline = ContinuousClock.now + .milliseconds(20)
                        while ContinuousClock.now < deadline {}
                        return CoreExecutor.currentThreadName()
                    }
                }
                return await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
        }
    }

    private static func nameCurrentThread(_ name: String) {
        #if os(Linux)
        try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        #else
        _ = pthread_setname_np(name)
        #endif
    }

    static func currentThreadName() -> String {
        #if os(Linux)
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
        #else
        var buffer = [CChar](repeating: 0, count: 64)
        pthread_getname_np(pthread_self(), &buffer, buffer.count)
        return String(cString: buffer)
        #endif
    }

    /// Runs jobs forever (the threads live as long as the benchmark process).
    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
