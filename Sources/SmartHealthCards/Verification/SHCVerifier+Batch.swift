import Foundation

extension SHCVerifier {
    /// Verifies many cards on every core and hands their reports over in the cards' order, a
    /// chunk at a time, as each chunk is done: a caller can print the first reports while later
    /// cards are still being verified, and holds at most one chunk of reports.
    ///
    /// The time is linear in the number of cards. Each chunk is split into `concurrency` runs of
    /// neighbouring cards, one child task each (one task per card would cost more than some
    /// verifications).
    ///
    /// - Parameters:
    ///   - cards: the cards, in the order their reports are wanted.
    ///   - concurrency: how many cards are verified at once; the active processor count by default.
    ///   - chunkSize: how many reports are handed over at a time.
    ///   - body: called once per chunk, in order, with the index of its first card and its reports.
    public func verifyAll(
        _ cards: [SHCInput.Card],
        concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        chunkSize: Int = 256,
        _ body: (_ firstIndex: Int, _ reports: [SHCVerificationReport]) async throws -> Void
    ) async rethrows {
        let workers = max(1, concurrency)
        let chunk = max(1, chunkSize)
        var start = 0
        while start < cards.count {
            let end = min(cards.count, start + chunk)
            let reports = await verifyRange(cards, start..<end, workers: workers)
            try await body(start, reports)
            start = end
        }
    }

    /// The reports of `cards[range]`, in order, verified by up to `workers` child tasks.
    private func verifyRange(_ cards: [SHCInput.Card], _ range: Range<Int>, workers: Int) async -> [SHCVerificationReport] {
        let share = (range.count + workers - 1) / workers
        if workers == 1 || range.count <= 1 {
            var reports: [SHCVerificationReport] = []
            reports.reserveCapacity(range.count)
            for index in range { reports.append(await verify(cards[index])) }
            return reports
        }
        return await withTaskGroup(of: (Int, [SHCVerificationReport]).self) { group in
            var lower = range.lowerBound
            while lower < range.upperBound {
                let part = lower..<min(range.upperBound, lower + share)
                group.addTask {
                    var reports: [SHCVerificationReport] = []
                    reports.reserveCapacity(part.count)
                    for index in part { reports.append(await verify(cards[index])) }
                    return (part.lowerBound, reports)
                }
                lower = part.upperBound
            }
            var parts: [(Int, [SHCVerificationReport])] = []
            for await part in group { parts.append(part) }
            parts.sort { $0.0 < $1.0 }
            return parts.flatMap(\.1)
        }
    }
}
