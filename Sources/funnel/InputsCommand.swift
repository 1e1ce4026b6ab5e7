import ArgumentParser
import FunnelCore

/// `funnel inputs [KIND]`: the input contract on the terminal (also `funnel help inputs`).
struct InputsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inputs",
        abstract: "List the input kinds, or every column of one kind.",
        discussion: InputContract.overview
    )

    @Argument(help: ArgumentHelp("A kind: \(EventKind.allCases.map(\.name).joined(separator: ", ")).", valueName: "kind"))
    var kind: String?

    func validate() throws {
        if let kind, EventKind(rawValue: kind) == nil {
            throw ValidationError("no input kind \(kind); the kinds are \(EventKind.allCases.map(\.name).joined(separator: ", "))")
        }
    }

    func run() throws {
        if let kind, let parsed = EventKind(rawValue: kind) {
            print(InputContract.columns(parsed))
        } else {
            print(InputContract.overview)
        }
    }
}
