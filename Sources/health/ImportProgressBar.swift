import AppleHealthExport
import Foundation
import Synchronization

/// The progress bar of `health import apple-health` on a terminal: one line on standard error,
/// redrawn after each committed batch, `[#######.............]  35%  120000 samples`.
final class ImportProgressBar: Sendable {
    private let enabled: Bool
    private let state = Mutex(false)

    /// - Parameter enabled: whether to draw (standard error is a terminal and no `--progress`).
    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// The bar's line for `fraction` of the file (a count alone when the size is unknown).
    static func line(fraction: Double?, samples: Int, width: Int = 30, noun: String = "sample") -> String {
        let count = "\(samples) \(noun)\(samples == 1 ? "" : "s")"
        guard let fraction else { return "Importing… \(count)" }
        let clamped = min(1, max(0, fraction))
        let filled = Int((clamped * Double(width)).rounded(.down))
        let percent = Int((clamped * 100).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let label = String(repeating: " ", count: max(0, 3 - String(percent).count)) + "\(percent)%"
        return "[\(bar)] \(label)  \(count)"
    }

    func update(_ progress: AppleHealthImportProgress) {
        draw(fraction: progress.fraction, count: progress.report.importedCount, noun: "sample")
    }

    /// Redraws the bar for `fraction` done and `count` things of `noun`.
    func draw(fraction: Double?, count: Int, noun: String) {
        guard enabled else { return }
        let text = "\r\u{1B}[K" + Self.line(fraction: fraction, samples: count, noun: noun)
        state.withLock { drawn in
            drawn = true
            try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
        }
    }

    /// Ends the bar's line, if one was drawn.
    func finish() {
        guard enabled else { return }
        state.withLock { drawn in
            if drawn { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
            drawn = false
        }
    }
}
