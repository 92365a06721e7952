// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// The splitters of one transport's bytes: one for a stream, one for each sender of datagrams
/// (UDP), so that two senders' partial lines are never joined. The partial pieces of at most
/// ``maximumSenders`` senders are kept at once: a flood of senders starts again, memory flat.
///
/// What ``NMEAFeedReader`` (every stream source) and `headingd scan` read with.
package struct SenderSplitters {
    /// The most senders whose partial pieces are kept at once.
    package static let maximumSenders = 64

    private let framing: NMEAStreamEndpoint.Framing
    private let maximumLineLength: Int
    private let isDatagram: Bool
    /// A stream's splitter: a stream has one sender, and no dictionary is touched per read.
    private var single: FeedSplitter
    /// Each sender's splitter, while a piece of its waits for more bytes.
    private var senders: [UInt64: FeedSplitter] = [:]

    /// Splitters for a transport.
    /// - Parameters:
    ///   - framing: How its bytes are split.
    ///   - maximumLineLength: The longest line (or frame) kept whole.
    ///   - isDatagram: Whether its reads are datagrams, each from a sender of its own.
    package init(_ framing: NMEAStreamEndpoint.Framing, maximumLineLength: Int, isDatagram: Bool) {
        self.framing = framing
        self.maximumLineLength = maximumLineLength
        self.isDatagram = isDatagram
        single = FeedSplitter(framing, maximumLineLength: maximumLineLength)
    }

    /// Splits one read's bytes into pieces, handing each to `body`. A datagram's last line is
    /// handed over when it is a whole sentence without its line end.
    /// - Parameters:
    ///   - bytes: What the read gave.
    ///   - sender: Who sent them (a datagram's source address); ignored for a stream.
    ///   - body: Given each piece, in order.
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, from sender: UInt64, _ body: (FeedPiece) -> Void) {
        guard isDatagram else { return single.append(bytes, body) }
        if senders.count >= Self.maximumSenders, senders[sender] == nil { senders.removeAll(keepingCapacity: true) }
        var splitter = senders.removeValue(forKey: sender) ?? FeedSplitter(framing, maximumLineLength: maximumLineLength)
        splitter.append(bytes, body)
        splitter.flushCompleteSentence(body)
        if splitter.hasPartial { senders[sender] = splitter }
    }

    /// Drops every partial piece, handing a fragment for each to `body`: a connection's partial
    /// line is never joined to the next one's bytes.
    package mutating func discardPartials(_ body: (FeedPiece) -> Void) {
        let dropped = single.discard()
        if dropped > 0 { body(.stream(.fragment(length: dropped))) }
        for key in Array(senders.keys) {
            let dropped = senders[key]!.discard()
            if dropped > 0 { body(.stream(.fragment(length: dropped))) }
        }
        senders.removeAll()
    }
}
