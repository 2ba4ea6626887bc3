/// The PostgreSQL notification channels the store and positiond's replicas share.
enum StoreChannels {
    /// Carries a venue's id whenever its revision increases (sent by ``FingerprintStore/bumpRevision(of:_:)``).
    static let revisions = "beaconfix_revisions"
}
