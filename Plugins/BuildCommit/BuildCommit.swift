import Foundation
import PackagePlugin

/// Gives the `health` module the commit it is built from (`health --version`): before every build,
/// a shell writes `BuildCommit.swift` with `let buildCommit = "<short hash of HEAD>"`, or
/// `"unknown"` when the package is not a git clone (a source archive) or git is missing.
///
/// A prebuild command, because HEAD moves without any file SwiftPM watches changing; it costs one
/// `git rev-parse` per build. The file is rewritten only when the commit changed, so an unchanged
/// HEAD recompiles nothing. The same file serves `swift run health`, `swift build -c release` and
/// scripts/install.sh and scripts/package-deb.sh, which build through SwiftPM.
@main
struct BuildCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit")
        // `safe.directory`: a clone owned by another user (a CI checkout built as root) still
        // answers; the `.git` test keeps a source archive unpacked inside some other clone from
        // taking that clone's commit.
        let script = """
            set -u
            package=$1 out=$2
            mkdir -p "$out"
            commit=unknown
            if [ -e "$package/.git" ] && hash=$(git -c safe.directory='*' -C "$package" rev-parse --short=7 HEAD 2>/dev/null); then
                commit=$hash
            fi
            text="// Written by the BuildCommit plugin before every build (Plugins/BuildCommit).
            /// The commit \\`health\\` was built from (short hash), or \\"unknown\\" outside a git clone.
            let buildCommit = \\"$commit\\""
            if [ "$(cat "$out/BuildCommit.swift" 2>/dev/null)" != "$text" ]; then
                printf '%s\\n' "$text" >"$out/BuildCommit.swift"
            fi
            """
        let path = ProcessInfo.processInfo.environment["PATH"].map { $0 + ":" } ?? ""
        return [
            .prebuildCommand(
                displayName: "Reading the commit \(target.name) is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
                environment: ["PATH": path + "/usr/local/bin:/usr/bin:/bin"],
                outputFilesDirectory: output),
        ]
    }
}
