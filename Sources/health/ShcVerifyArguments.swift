/// The values of a `health shc verify` command line, read without swift-argument-parser when the
/// line is in its plain form.
///
/// `shc verify` is run on batches of cards, where the process's start is part of every run, and
/// the argument parser's reflection (a `Mirror` of each command and option group, each of whose
/// types the Swift runtime looks up among the binary's twenty thousand protocol conformances)
/// costs about as much as loading the binary. A command line this reader is not sure of (any
/// other spelling, `-h`, `help`, `--`, `--name=value`, a value that starts with `-`, a repeated
/// single option) is left to the argument parser, so usage, help and errors are exactly the parser's;
/// a test holds what it does read to what the parser reads.
struct ShcVerifyArguments: Equatable {
    /// The files to verify.
    var inputs: [String] = []
    /// `--issuer ISS=DIR`, in order.
    var issuers: [String] = []
    /// `--trust-directory FILE`.
    var trustDirectory: String?
    /// `--at ISO8601`.
    var at: String?
    /// `--allow-private-issuers`.
    var allowPrivateIssuers = false
    /// `--json`.
    var json = false

    /// The values of `arguments` (the command line after the program's name) when it is
    /// `shc verify` followed only by input paths, `--issuer`, `--trust-directory` and `--at` each
    /// with a value, `--allow-private-issuers` and `--json`; nil for anything else.
    init?(commandLine arguments: [String]) {
        guard arguments.count > 2, arguments[0] == "shc", arguments[1] == "verify" else { return nil }
        var index = 2
        /// The value after an option: present, not empty and not dash-led (the parser would take
        /// it as an option).
        func value() -> String? {
            guard index + 1 < arguments.count else { return nil }
            let value = arguments[index + 1]
            guard let first = value.utf8.first, first != UInt8(ascii: "-") else { return nil }
            index += 2
            return value
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--issuer":
                guard let issuer = value() else { return nil }
                issuers.append(issuer)
            case "--trust-directory":
                guard trustDirectory == nil, let file = value() else { return nil }
                trustDirectory = file
            case "--at":
                guard at == nil, let instant = value() else { return nil }
                at = instant
            case "--allow-private-issuers":
                guard !allowPrivateIssuers else { return nil }
                allowPrivateIssuers = true
                index += 1
            case "--json":
                guard !json else { return nil }
                json = true
                index += 1
            default:
                // A dash-led word is an option; `help` may be read as a request for help.
                guard let first = argument.utf8.first, first != UInt8(ascii: "-"), argument != "help" else { return nil }
                inputs.append(argument)
                index += 1
            }
        }
        guard !inputs.isEmpty else { return nil }
    }

    /// Values set one by one (for the parsed command).
    init(inputs: [String], issuers: [String], trustDirectory: String?, at: String?, allowPrivateIssuers: Bool, json: Bool) {
        self.inputs = inputs
        self.issuers = issuers
        self.trustDirectory = trustDirectory
        self.at = at
        self.allowPrivateIssuers = allowPrivateIssuers
        self.json = json
    }
}
