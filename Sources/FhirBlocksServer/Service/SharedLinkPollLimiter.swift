import FhirBlocks
import Synchronization

/// How often a long-term (`L`) link's manifest may be fetched: each recipient at most once an
/// ``interval``, and each link by at most ``recipientsPerLink`` recipients an interval (a new
/// name per request does not get around the limit). Polling faster answers 429 with the seconds
/// to wait.
///
/// The memory is bounded: a link's entries are kept only while they still hold someone back
/// (older ones are dropped whenever the link is looked at), a link keeps at most
/// ``recipientsPerLink`` recipients, and at most ``maximumLinks`` links are kept (when a new link
/// would exceed it, links whose entries all expired go first, then the link polled longest ago).
/// One per server, in memory: servers sharing a database each hold their own.
final class SharedLinkPollLimiter: Sendable {
    /// The shortest time between two polls of one recipient (milliseconds).
    let interval: Int64
    /// The most recipients one link answers within an interval.
    let recipientsPerLink: Int
    /// The most links kept.
    let maximumLinks: Int

    /// The polls of one link within the last interval.
    struct LinkPolls: Sendable {
        /// When each recipient last polled.
        var recipients: [String: Timestamp] = [:]
        /// The latest of them.
        var latest: Timestamp
    }

    /// What ``reserve(link:recipient:now:)`` decided.
    enum Decision: Sendable, Hashable {
        /// The poll may go ahead; it is noted at `now` (``cancel(link:recipient:at:)`` gives it back).
        case allowed
        /// Too fast: the seconds to wait (at least 1).
        case wait(seconds: Int64)
    }

    private let links = Mutex<[String: LinkPolls]>([:])

    /// Creates a limiter.
    /// - Parameters:
    ///   - intervalSeconds: The shortest time between two polls of one recipient.
    ///   - recipientsPerLink: The most recipients one link answers within an interval.
    ///   - maximumLinks: The most links kept.
    init(intervalSeconds: Int64, recipientsPerLink: Int = 100, maximumLinks: Int = 10_000) {
        interval = max(1, intervalSeconds) * 1000
        self.recipientsPerLink = max(1, recipientsPerLink)
        self.maximumLinks = max(1, maximumLinks)
    }

    /// Whether `recipient` may poll `link` at `now`; when allowed, the poll is noted at once (so
    /// parallel polls of one recipient get one answer between them).
    func reserve(link: String, recipient: String, now: Timestamp) -> Decision {
        links.withLock { links -> Decision in
            var polls = links[link] ?? LinkPolls(latest: now)
            polls.recipients = polls.recipients.filter { isFresh($0.value, now: now) }
            if let last = polls.recipients[recipient] {
                links[link] = polls
                return .wait(seconds: wait(since: last, now: now))
            }
            if polls.recipients.count >= recipientsPerLink, let oldest = polls.recipients.values.min() {
                links[link] = polls
                return .wait(seconds: wait(since: oldest, now: now))
            }
            polls.recipients[recipient] = now
            polls.latest = max(polls.latest, now)
            if links[link] == nil && links.count >= maximumLinks { makeRoom(&links, now: now) }
            links[link] = polls
            return .allowed
        }
    }

    /// Gives back a poll ``reserve(link:recipient:now:)`` allowed at `at` (the request was not
    /// answered with the manifest: a wrong passcode, a failure), so the recipient may try again.
    func cancel(link: String, recipient: String, at: Timestamp) {
        links.withLock { links in
            guard var polls = links[link], polls.recipients[recipient] == at else { return }
            polls.recipients[recipient] = nil
            links[link] = polls.recipients.isEmpty ? nil : polls
        }
    }

    /// How many links are kept.
    var linkCount: Int { links.withLock { $0.count } }

    /// How many recipients of `link` are kept.
    func recipientCount(link: String) -> Int { links.withLock { $0[link]?.recipients.count ?? 0 } }

    private func isFresh(_ polled: Timestamp, now: Timestamp) -> Bool {
        now.milliseconds(since: polled) < interval
    }

    /// The whole seconds until a poll at `polled` no longer holds anyone back (at least 1, at
    /// most the interval, a clock that went back included).
    private func wait(since polled: Timestamp, now: Timestamp) -> Int64 {
        let left = interval - max(0, now.milliseconds(since: polled))
        return min(interval / 1000, max(1, (left + 999) / 1000))
    }

    /// Frees one place at least: every link whose polls all expired, else the link polled
    /// longest ago.
    private func makeRoom(_ links: inout [String: LinkPolls], now: Timestamp) {
        links = links.filter { isFresh($0.value.latest, now: now) }
        guard links.count >= maximumLinks, let stalest = links.min(by: { $0.value.latest < $1.value.latest })?.key else { return }
        links[stalest] = nil
    }
}
