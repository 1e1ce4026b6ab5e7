import Foundation

extension FileHandle {
    /// Writes a message to standard error, unbuffered.
    static func standardErrorWrite(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
