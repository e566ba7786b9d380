import FhirBlocks

/// One page of one type of a compartment as NDJSON-to-be
/// (``ResourceStore/resourceLines(patient:type:since:afterID:limit:)``): each resource's JSON as
/// stored, followed by a line feed, one after another in ``bytes``, in the page's order (id byte
/// order). A JSON that itself holds a line feed is still one entry: ``ends`` says where each ends.
public struct ResourceLines: Sendable, Hashable {
    /// The JSON of each resource, each followed by one line feed.
    public var bytes: [UInt8] = []
    /// Where each resource's JSON ends in ``bytes``: the index of the line feed that follows it
    /// (the next one starts right after it).
    public var ends: [Int] = []
    /// The id of the last resource (the cursor of the next page); nil when the page is empty.
    public var lastID: String?

    /// An empty page.
    public init() {}

    /// How many resources the page holds.
    public var count: Int { ends.count }

    /// The range of the `index`th resource's JSON in ``bytes`` (its line feed excluded).
    public func range(_ index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1] + 1)..<ends[index]
    }

    /// Appends one resource's JSON and its line feed.
    public mutating func append(_ json: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: json.assumingMemoryBound(to: UInt8.self))
        ends.append(bytes.count)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Appends one resource's JSON and its line feed.
    public mutating func append(_ json: [UInt8]) {
        json.withUnsafeBytes { append($0) }
    }
}

extension ResourceStore {
    /// ``ResourceStore/resources(patient:type:since:afterID:limit:)``, its records' JSON gathered into lines.
    public func resourceLines(patient: CsiGuid, type: String, since: Timestamp?, afterID: String?,
                              limit: Int) async throws(TrustStoreError) -> ResourceLines {
        let records = try await resources(patient: patient, type: type, since: since, afterID: afterID, limit: limit)
        var lines = ResourceLines()
        lines.bytes.reserveCapacity(records.reduce(0) { $0 + $1.json.count + 1 })
        lines.ends.reserveCapacity(records.count)
        for record in records { lines.append(record.json) }
        lines.lastID = records.last?.id
        return lines
    }
}
