import FhirBlocks

/// One page of one type of a compartment as NDJSON-to-be
/// (``ResourceStore/resourceLines(patient:type:since:afterID:limit:maximumBytes:)``): each resource's JSON as
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

    /// The most records the default ``ResourceStore/resourceLines(patient:type:since:afterID:limit:maximumBytes:)``
    /// holds at once (it reads a page of more in several reads).
    public static let recordsPerRead = 1_000

    /// Whether a page read with `limit` and `maximumBytes` may have more after it: it holds
    /// `limit` resources, or it ended early at `maximumBytes` (a page that ends exactly there
    /// by chance costs one more, empty, read).
    public func mayHaveMore(limit: Int, maximumBytes: Int) -> Bool {
        count > 0 && (count >= limit || bytes.count >= maximumBytes)
    }

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
    /// ``ResourceStore/resources(patient:type:since:until:afterID:limit:)``, its records' JSON gathered
    /// into lines, read ``ResourceLines/recordsPerRead`` records at a time until the page holds
    /// `limit` resources or `maximumBytes` bytes.
    public func resourceLines(patient: CsiGuid, type: String, since: Timestamp?, until: Timestamp?, afterID: String?,
                              limit: Int, maximumBytes: Int) async throws(TrustStoreError) -> ResourceLines {
        var lines = ResourceLines()
        var after = afterID
        while lines.count < limit, lines.count == 0 || lines.bytes.count < maximumBytes {
            let wanted = min(limit - lines.count, ResourceLines.recordsPerRead)
            let records = try await resources(patient: patient, type: type, since: since, until: until, afterID: after, limit: wanted)
            for record in records {
                lines.append(record.json)
                lines.lastID = record.id
                if lines.bytes.count >= maximumBytes { return lines }
            }
            guard records.count == wanted, let last = records.last else { break }
            after = last.id
        }
        return lines
    }
}

extension ResourceStore {
    /// ``ResourceStore/resources(patient:type:since:until:afterID:limit:)`` with no upper bound.
    public func resources(patient: CsiGuid, type: String, since: Timestamp?, afterID: String?,
                          limit: Int) async throws(TrustStoreError) -> [FHIRResourceRecord] {
        try await resources(patient: patient, type: type, since: since, until: nil, afterID: afterID, limit: limit)
    }

    /// ``ResourceStore/resourceLines(patient:type:since:until:afterID:limit:maximumBytes:)`` with no upper bound.
    public func resourceLines(patient: CsiGuid, type: String, since: Timestamp?, afterID: String?,
                              limit: Int, maximumBytes: Int) async throws(TrustStoreError) -> ResourceLines {
        try await resourceLines(patient: patient, type: type, since: since, until: nil, afterID: afterID, limit: limit, maximumBytes: maximumBytes)
    }
}
