import Foundation

extension SHCVerifier {
    /// Verifies many cards on every core and hands their reports over in the cards' order, a
    /// chunk at a time, as each chunk is done: a caller can print the first reports while later
    /// cards are still being verified, and holds at most a few chunks of reports.
    ///
    /// The same as ``verifyAll(_:concurrency:chunkSize:transform:_:)`` with the reports
    /// themselves as the outputs.
    ///
    /// - Parameters:
    ///   - cards: the cards, in the order their reports are wanted.
    ///   - concurrency: how many cards are verified at once; the active processor count by default.
    ///   - chunkSize: how many reports are handed over at a time.
    ///   - body: called once per chunk, in order, with the index of its first card and its reports.
    public func verifyAll<Failure: Error>(
        _ cards: [SHCInput.Card],
        concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        chunkSize: Int = 256,
        _ body: (_ firstIndex: Int, _ reports: [SHCVerificationReport]) async throws(Failure) -> Void
    ) async throws(Failure) {
        try await verifyAll(cards, concurrency: concurrency, chunkSize: chunkSize, transform: { _, report in report }, body)
    }

    /// Verifies many cards on every core, turns each report into an output on the same worker
    /// (a formatted line, a summary, a stored record), and hands the outputs over in the cards'
    /// order, a chunk at a time.
    ///
    /// Verification is pipelined with the caller: while `body` handles one chunk, the workers
    /// already verify the next ones (at most two chunks ahead), so writing the outputs costs the
    /// batch no core time of its own. The time is linear in the number of cards: each chunk is
    /// split into four runs of neighbouring cards per worker (the last chunk into sixteen), one
    /// child task each (one task per card would cost more than some verifications).
    ///
    /// - Parameters:
    ///   - cards: the cards, in the order their outputs are wanted.
    ///   - concurrency: how many cards are verified at once; the active processor count by default.
    ///   - chunkSize: how many outputs are handed over at a time.
    ///   - transform: called on the worker that verified a card, with the card's index and its
    ///     report; whatever it returns is handed to `body`.
    ///   - body: called once per chunk, in order, with the index of its first card and its outputs.
    ///     When it throws, the cards not yet verified are not verified and the error is rethrown.
    public func verifyAll<Output: Sendable, Failure: Error>(
        _ cards: [SHCInput.Card],
        concurrency: Int = ProcessInfo.processInfo.activeProcessorCount,
        chunkSize: Int = 256,
        transform: @escaping @Sendable (_ index: Int, _ report: SHCVerificationReport) -> Output,
        _ body: (_ firstIndex: Int, _ outputs: [Output]) async throws(Failure) -> Void
    ) async throws(Failure) {
        let workers = max(1, concurrency)
        let chunk = max(1, chunkSize)
        guard !cards.isEmpty else { return }
        // Parts: runs of neighbouring cards, four per worker and chunk, verified by child tasks.
        // (Smaller parts than one per worker: when the last ones are verified, a worker that is
        // done waits at most for a short part of another's; the last chunk's parts are a quarter
        // of that, so the batch ends with both cores busy until a few cards before the end.)
        // Part p is the cards `bounds[p]..<bounds[p + 1]` (boundaries in an `[Int]`: an array of
        // `Range<Int>` has the runtime look up `Int: Comparable` among the binary's conformances
        // once per process, before the first card is verified).
        let share = (min(chunk, cards.count) + 4 * workers - 1) / (4 * workers)
        var bounds: [Int] = [0]
        var chunkOfPart: [Int] = []
        var chunkStart = 0
        while chunkStart < cards.count {
            let chunkEnd = min(cards.count, chunkStart + chunk)
            let length = chunkEnd == cards.count ? max(1, share / 4) : share
            var lower = chunkStart
            while lower < chunkEnd {
                let upper = min(chunkEnd, lower + length)
                bounds.append(upper)
                chunkOfPart.append(chunkStart / chunk)
                lower = upper
            }
            chunkStart = chunkEnd
        }
        let partCount = chunkOfPart.count
        // While `body` handles one chunk, the parts of the next `chunksAhead` chunks are in flight.
        let chunksAhead = 2
        let verifier = self
        var failure: Failure?
        await withTaskGroup(of: (Int, [Output]).self) { group in
            var nextPart = 0
            var currentChunk = 0
            // The outputs of parts done before their turn, by part (an array, not `[Int: [Output]]`,
            // whose `Int: Hashable` the runtime would look up among the conformances once per process).
            var done = [[Output]?](repeating: nil, count: partCount)
            var nextToHand = 0
            var handed: [Output] = []
            var handedStart = 0
            var lastChunkInFlight = chunksAhead
            while nextToHand < partCount {
                while nextPart < partCount, chunkOfPart[nextPart] <= lastChunkInFlight {
                    let part = bounds[nextPart]..<bounds[nextPart + 1]
                    let number = nextPart
                    group.addTask {
                        var outputs: [Output] = []
                        outputs.reserveCapacity(part.count)
                        for index in part {
                            // After the caller's body threw, the rest is not wanted.
                            if Task.isCancelled { break }
                            let report = await verifier.verify(cards[index])
                            outputs.append(transform(index, report))
                        }
                        return (number, outputs)
                    }
                    nextPart += 1
                }
                guard let outputs = done[nextToHand] else {
                    guard let (number, outputs) = await group.next() else { break }
                    done[number] = outputs
                    continue
                }
                done[nextToHand] = nil
                if handed.isEmpty { handedStart = bounds[nextToHand] }
                handed += outputs
                nextToHand += 1
                guard nextToHand == partCount || chunkOfPart[nextToHand] != currentChunk else { continue }
                do throws(Failure) {
                    try await body(handedStart, handed)
                } catch {
                    failure = error
                    group.cancelAll()
                    return
                }
                handed.removeAll(keepingCapacity: true)
                currentChunk += 1
                lastChunkInFlight = currentChunk + chunksAhead
            }
        }
        if let failure { throw failure }
    }
}
