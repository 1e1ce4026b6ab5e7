import FunnelIngest
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("digests match the FIPS 180-4 / NIST test vectors")
    func knownVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(Array(("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
            + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8))
            == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test("one million 'a' fed in uneven pieces hashes like the standard vector")
    func millionAInPieces() {
        var hasher = SHA256()
        let piece = [UInt8](repeating: 0x61, count: 997)
        var remaining = 1_000_000
        while remaining > 0 {
            let count = min(remaining, piece.count - remaining % 7)
            hasher.update(Array(piece.prefix(count)))
            remaining -= count
        }
        #expect(hasher.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("a file's checksum is the hash of its bytes, with its size")
    func fileChecksum() throws {
        let scratch = try Scratch()
        let path = try scratch.file("x.csv", "abc")
        let (hex, size) = try SHA256.file(at: path)
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(size == 3)
    }
}
