import Foundation

/// Where the bytes of one file of an export come from: a file on disk, or an entry of the zip
/// archive inflated as it is read.
protocol ExportByteSource: AnyObject {
    /// The next bytes, at most `count`; nil or empty at the end.
    func read(upToCount count: Int) throws -> Data?
    /// Stops reading: releases the file, and stops an archive's inflater.
    func close()
}

/// A file read through a `FileHandle`.
final class FileByteSource: ExportByteSource {
    private let handle: FileHandle

    init(_ url: URL) throws {
        handle = try FileHandle(forReadingFrom: url)
    }

    func read(upToCount count: Int) throws -> Data? {
        try handle.read(upToCount: count)
    }

    func close() {
        try? handle.close()
    }
}

/// Bytes in memory (the tests' and the fuzz target's exports).
final class DataByteSource: ExportByteSource {
    private var data: Data
    private var offset = 0

    init(_ data: Data) {
        self.data = data
    }

    func read(upToCount count: Int) throws -> Data? {
        let taken = min(count, data.count - offset)
        guard taken > 0 else { return nil }
        defer { offset += taken }
        return data.subdata(in: data.startIndex + offset..<data.startIndex + offset + taken)
    }

    func close() {
        data = Data()
        offset = 0
    }
}

extension ExportByteSource {
    /// Reads until `count` bytes or the end.
    func read(exactly count: Int) throws -> Data {
        var data = Data()
        while data.count < count {
            guard let chunk = try read(upToCount: count - data.count), !chunk.isEmpty else { break }
            data.append(chunk)
        }
        return data
    }
}
