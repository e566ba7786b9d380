import FhirBlocks
import FhirBlocksStore
import Synchronization
import Testing
import TestSupport
@testable import FhirBlocksServer

/// The group commit on its own, with a writer the test holds: requests that arrive while a group
/// is being written form the next group; a failed group fails each of its requests and nothing
/// follows it; a durable group is followed once, after its requests were resumed.
@Suite(.timeLimit(.minutes(10))) struct AuditGroupCommitterTests {
    /// A log in memory whose writes wait for the test's go-ahead, one per group.
    final class HeldLog: Sendable {
        let groups = Inbox<[String]>()
        let goAhead = Inbox<Bool>()
        let followed = Inbox<[Int]>()
        private let stored = Mutex<[String]>([])

        var entries: [String] { stored.withLock { $0 } }

        func write(_ change: TrustChange) async throws(TrustStoreError) -> [Int] {
            let agents = change.auditEntries.map(\.entry.agent)
            let number = groups.appendCounting(agents)
            // The go-ahead for this group says whether its transaction succeeds.
            guard await goAhead.wait(for: number)[number - 1] else { throw .unavailable("the disk is full") }
            return stored.withLock { stored in
                let first = stored.count
                stored += agents
                return Array(first..<stored.count)
            }
        }
    }

    static func pending(_ agent: String) -> PendingAuditEntry {
        PendingAuditEntry(entry: AuditEntry(type: .fhirAccess, recorded: Timestamp(secondsSince1970: 1_800_000_000), agent: agent))
    }

    static func commit(_ agents: [String], to committer: AuditGroupCommitter, log: HeldLog,
                       afterGroup: AuditGroupCommitter.AfterGroup? = nil) async -> Result<[Int], TrustStoreError> {
        do throws(TrustStoreError) {
            return .success(try await committer.commit(agents.map(pending), writer: { change, completion in
                Task {
                    do throws(TrustStoreError) {
                        completion(.success(try await log.write(change)))
                    } catch {
                        completion(.failure(error))
                    }
                }
            }, afterGroup: afterGroup ?? { indexes in { log.followed.append(indexes) } }))
        } catch {
            return .failure(error)
        }
    }

    /// Waits until `count` entries wait for the next group (they queue without running code the
    /// test could observe otherwise).
    static func waitUntilQueued(_ count: Int, in committer: AuditGroupCommitter) async {
        while committer.waitingEntries < count { await Task.yield() }
    }

    @Test func requestsArrivingDuringAWriteShareTheNextGroupInArrivalOrder() async throws {
        let committer = AuditGroupCommitter(), log = HeldLog()
        let first = Task { await Self.commit(["a"], to: committer, log: log) }
        #expect(await log.groups.wait(for: 1) == [["a"]])
        // While "a" is being written, three requests queue (one with two entries).
        let second = Task { await Self.commit(["b1", "b2"], to: committer, log: log) }
        await Self.waitUntilQueued(2, in: committer)
        let third = Task { await Self.commit(["c"], to: committer, log: log) }
        await Self.waitUntilQueued(3, in: committer)
        log.goAhead.append(true)
        log.goAhead.append(true)
        #expect(try await first.value.get() == [0])
        #expect(try await second.value.get() == [1, 2])
        #expect(try await third.value.get() == [3])
        #expect(await log.groups.wait(for: 2) == [["a"], ["b1", "b2", "c"]])
        #expect(log.entries == ["a", "b1", "b2", "c"])
        #expect(await log.followed.wait(for: 2) == [[0], [1, 2, 3]])
        #expect(committer.waitingEntries == 0)
    }

    @Test func aFailedGroupFailsEachOfItsRequestsAndIsNotFollowed() async throws {
        let committer = AuditGroupCommitter(), log = HeldLog()
        let first = Task { await Self.commit(["a"], to: committer, log: log) }
        _ = await log.groups.wait(for: 1)
        let doomed = ["x", "y", "z"].map { agent in Task { await Self.commit([agent], to: committer, log: log) } }
        await Self.waitUntilQueued(3, in: committer)
        log.goAhead.append(true)
        log.goAhead.append(false)
        #expect(try await first.value.get() == [0])
        for task in doomed {
            #expect(await task.value == .failure(.unavailable("the disk is full")))
        }
        // Nothing of the failed group was stored; the next request starts a new group after "a".
        let later = Task { await Self.commit(["d"], to: committer, log: log) }
        log.goAhead.append(true)
        #expect(try await later.value.get() == [1])
        #expect(log.entries == ["a", "d"])
        #expect(await log.followed.wait(for: 2) == [[0], [1]])
        #expect(log.followed.values.count == 2)
    }

    @Test func anEmptyRequestWritesNothing() async throws {
        let committer = AuditGroupCommitter(), log = HeldLog()
        #expect(try await Self.commit([], to: committer, log: log).get() == [])
        #expect(log.groups.values.isEmpty)
    }

    @Test func followUpWorkRunsOneAtATimeInOrderWhileTheNextGroupsAreWritten() async throws {
        let committer = AuditGroupCommitter(), log = HeldLog()
        let started = Inbox<[Int]>(), release = Inbox<Bool>()
        let follow: AuditGroupCommitter.AfterGroup = { indexes in
            {
                let number = started.appendCounting(indexes)
                _ = await release.wait(for: number)
            }
        }
        log.goAhead.append(true)
        #expect(try await Self.commit(["a"], to: committer, log: log, afterGroup: follow).get() == [0])
        #expect(await started.wait(for: 1) == [[0]])
        // The first group's follow-up is held: the next groups are still written and answered.
        log.goAhead.append(true)
        #expect(try await Self.commit(["b"], to: committer, log: log, afterGroup: follow).get() == [1])
        log.goAhead.append(true)
        #expect(try await Self.commit(["c"], to: committer, log: log, afterGroup: follow).get() == [2])
        // Their follow-ups wait for the first's, then run in the groups' order.
        #expect(started.values == [[0]])
        release.append(true)
        #expect(await started.wait(for: 2) == [[0], [1]])
        release.append(true)
        #expect(await started.wait(for: 3) == [[0], [1], [2]])
        let idle = Task { await committer.idle() }
        while committer.idleWaiterCount < 1 { await Task.yield() }
        release.append(true)
        await idle.value
    }

    @Test func idleWaitsForTheWorkThatFollowsTheLastGroup() async throws {
        let committer = AuditGroupCommitter(), log = HeldLog()
        // Nothing is being written: it returns at once.
        await committer.idle()
        let followStarted = Inbox<[Int]>(), release = Inbox<Bool>(), followFinished = Inbox<Bool>()
        let follow: AuditGroupCommitter.AfterGroup = { indexes in
            {
                followStarted.append(indexes)
                _ = await release.wait(for: 1)
                followFinished.append(true)
            }
        }
        let request = Task { await Self.commit(["a"], to: committer, log: log, afterGroup: follow) }
        log.goAhead.append(true)
        // The request is answered before its group's follow-up work (the checkpoint) runs.
        #expect(try await request.value.get() == [0])
        #expect(await followStarted.wait(for: 1) == [[0]])
        let idle = Task {
            await committer.idle()
            return followFinished.values == [true]
        }
        while committer.idleWaiterCount < 1 { await Task.yield() }
        #expect(followFinished.values.isEmpty)
        release.append(true)
        #expect(await idle.value == true)
        #expect(committer.idleWaiterCount == 0)
    }
}
