/// A `multipart/form-data` body as a browser writes it, for the upload tests.
struct MultipartBody: Sendable {
    let boundary: String
    private(set) var bytes: [UInt8] = []

    init(boundary: String = "----ohkTestBoundary7MA4YWxkTrZu0gW") {
        self.boundary = boundary
    }

    /// Adds a text field.
    func field(_ name: String, _ value: String) -> MultipartBody {
        adding("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n", Array(value.utf8))
    }

    /// Adds a file.
    func file(_ name: String, filename: String, _ content: [UInt8], type: String = "application/octet-stream") -> MultipartBody {
        adding("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n", content)
    }

    /// The body with its closing boundary.
    var closed: MultipartBody {
        var copy = self
        copy.bytes += Array("--\(boundary)--\r\n".utf8)
        return copy
    }

    private func adding(_ headers: String, _ content: [UInt8]) -> MultipartBody {
        var copy = self
        copy.bytes += Array("--\(boundary)\r\n\(headers)".utf8) + content + Array("\r\n".utf8)
        return copy
    }
}
