public enum FunnelComputeModule {}
