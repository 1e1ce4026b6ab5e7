import CLibPQ

/// Streams rows to a running `COPY ... FROM STDIN`, buffering them into large chunks.
///
/// Given to the body of `PostgresConnection.copyIn`; it never outlives the call.
public struct CopyInWriter: ~Copyable {
    private let connection: PostgresConnection
    private var buffer: [UInt8]
    private let chunkSize: Int
    /// Bytes handed to libpq so far.
    public private(set) var bytesSent: Int = 0

    init(connection: PostgresConnection, chunkSize: Int) {
        self.connection = connection
        self.chunkSize = chunkSize
        self.buffer = []
        buffer.reserveCapacity(chunkSize + 64 * 1024)
    }

    /// Appends bytes of COPY data (whole or partial rows).
    public mutating func write(_ bytes: some Sequence<UInt8>) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= chunkSize { try flush() }
    }

    /// Appends bytes from raw memory, a chunk at a time: a batch of many megabytes is sent in
    /// pieces of `chunkSize`, so neither this buffer nor libpq's grows to the batch's size.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let take = min(bytes.count - offset, max(chunkSize - buffer.count, 1))
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + take)]))
            offset += take
            if buffer.count >= chunkSize { try flush() }
        }
    }

    /// Appends the UTF-8 bytes of a string.
    public mutating func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= chunkSize { try flush() }
    }

    /// Sends whatever is buffered.
    public mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        let status = buffer.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: CChar.self) { chars in
                PQputCopyData(connection.handle, chars.baseAddress, Int32(chars.count))
            }
        }
        guard status == 1 else {
            throw connection.copyStreamError()
        }
        bytesSent += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}

extension PostgresConnection {
    /// Runs `COPY ... FROM STDIN` and streams the data the body writes, in chunks of `chunkSize`
    /// bytes. Returns the number of rows the server copied.
    ///
    /// If the body throws, the COPY is aborted (the server discards it) and the body's error is
    /// rethrown. If the server rejects the data, its error is thrown with the failing line in
    /// `context` (`COPY t, line 42, column n: "x"`).
    @discardableResult
    public func copyIn(_ sql: String, chunkSize: Int = 1 << 20,
                       _ body: (inout CopyInWriter) throws -> Void) throws -> Int {
        let start = PQexec(handle, sql)
        guard let start else { throw connectionError(query: sql) }
        let status = PQresultStatus(start)
        if status != PGRES_COPY_IN {
            defer { PQclear(start) }
            if status == PGRES_FATAL_ERROR { throw serverError(start, query: sql) }
            throw PostgresError(code: .client, message: "statement did not start COPY FROM STDIN", query: sql)
        }
        PQclear(start)

        var writer = CopyInWriter(connection: self, chunkSize: chunkSize)
        do {
            try body(&writer)
            try writer.flush()
        } catch {
            // Abort: the server discards the data and answers with an error we drain.
            _ = PQputCopyEnd(handle, "aborted by the client: \(error)")
            drainResults()
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else {
            throw copyStreamError(query: sql)
        }
        var copied = 0
        var firstError: PostgresError?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK:
                copied = Int(String(cString: PQcmdTuples(result))) ?? 0
            default:
                if firstError == nil { firstError = serverError(result, query: sql) }
            }
        }
        if let firstError { throw firstError }
        return copied
    }

    /// The error after a COPY stream could not be sent: the server's own error when it has
    /// already rejected the data, otherwise libpq's message.
    func copyStreamError(query: String? = nil) -> PostgresError {
        let clientMessage = errorText(PQerrorMessage(handle))
        var serverFailure: PostgresError?
        while let result = PQgetResult(handle) {
            if serverFailure == nil, PQresultStatus(result) == PGRES_FATAL_ERROR {
                serverFailure = serverError(result, query: query)
            }
            PQclear(result)
        }
        if let serverFailure { return serverFailure }
        return PostgresError(code: PQstatus(handle) == CONNECTION_OK ? .copyFailed : .connectionLost,
                             message: clientMessage, query: query)
    }

    private func drainResults() {
        while let result = PQgetResult(handle) { PQclear(result) }
    }
}
