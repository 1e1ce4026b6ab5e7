import Foundation

/// Prints one JSON document (snake_case keys, sorted, ISO 8601 dates) on standard output, for
/// the `--json` flag of commands that scripts call.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
