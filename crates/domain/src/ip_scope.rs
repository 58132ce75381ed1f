//! Which IP addresses are global, that is reachable across the internet,
//! so that a request the service makes for a client (a webhook delivery)
//! cannot be steered into the service's own host or network.
//!
//! The blocks transcribe IANA's IPv4 and IPv6 Special-Purpose Address
//! Registries (RFC 6890 and its updates, to RFC 9602, RFC 9637 and RFC 9780):
//! every block whose "globally reachable" is false or not applicable is
//! refused. A few addresses that the registries call globally reachable sit
//! inside such blocks (the anycast addresses of PCP, TURN and DNS-SD, AMT
//! relays, AS112, overlay identifiers); none of them is a web server, and
//! they are refused with their block. Two rules close what a list of blocks
//! leaves open:
//!
//! - an IPv6 address is global only inside `2000::/3`, the one range IANA
//!   allocates for global unicast: everything else (the IPv4-compatible
//!   `::a.b.c.d`, the IPv4-mapped `::ffff:a.b.c.d`, the IPv4-translated
//!   `::ffff:0:a.b.c.d`, unique-local, link-local, site-local, multicast, …)
//!   is refused whatever IPv4 address it embeds;
//! - the one global block outside it, NAT64's well-known prefix
//!   `64:ff9b::/96` (RFC 6052), reaches the IPv4 address it embeds, so it is
//!   global exactly when that IPv4 address is (an IPv6-only network with
//!   DNS64 reaches IPv4-only receivers through it).
//!
//! Within `2000::/3`, 6to4 (`2002::/16`) and Teredo (`2001::/32`) also embed
//! IPv4 addresses; neither is globally reachable, so both are refused whole.
//! `ipnet` (already built for the HTTP client) spells the blocks; the
//! standard library's `is_global` is unstable, and the crates that copy it
//! call `::7f00:1` and `64:ff9b::7f00:1` global.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::{Ipv4Net, Ipv6Net};

/// IPv4 blocks that are not globally reachable, named.
const NOT_GLOBAL_V4: [(Ipv4Net, &str); 16] = [
    (v4([0, 0, 0, 0], 8), "\"this network\""),
    (v4([10, 0, 0, 0], 8), "private-use"),
    (v4([100, 64, 0, 0], 10), "shared (carrier-grade NAT)"),
    (v4([127, 0, 0, 0], 8), "loopback"),
    (v4([169, 254, 0, 0], 16), "link-local"),
    (v4([172, 16, 0, 0], 12), "private-use"),
    (v4([192, 0, 0, 0], 24), "IETF protocol assignments"),
    (v4([192, 0, 2, 0], 24), "documentation"),
    (v4([192, 88, 99, 0], 24), "6to4 relay anycast"),
    (v4([192, 168, 0, 0], 16), "private-use"),
    (v4([198, 18, 0, 0], 15), "benchmarking"),
    (v4([198, 51, 100, 0], 24), "documentation"),
    (v4([203, 0, 113, 0], 24), "documentation"),
    // Not in the special-purpose registry, and never a unicast host.
    (v4([224, 0, 0, 0], 4), "multicast"),
    (v4([255, 255, 255, 255], 32), "broadcast"),
    (v4([240, 0, 0, 0], 4), "reserved"),
];

/// IPv6 blocks that are not globally reachable, named: those the registry
/// lists inside `2000::/3`, then the known ones outside it (any other
/// address outside it is refused too). The first block that holds an
/// address names it.
const NOT_GLOBAL_V6: [(Ipv6Net, &str); 19] = [
    (v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 32), "Teredo"),
    (v6([0x2001, 2, 0, 0, 0, 0, 0, 0], 48), "benchmarking"),
    (
        v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        "IETF protocol assignments",
    ),
    (v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), "documentation"),
    (v6([0x2002, 0, 0, 0, 0, 0, 0, 0], 16), "6to4"),
    (v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), "documentation"),
    (
        v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16),
        "segment routing (SRv6) identifiers",
    ),
    (v6([0, 0, 0, 0, 0, 0, 0, 0], 128), "unspecified"),
    (v6([0, 0, 0, 0, 0, 0, 0, 1], 128), "loopback"),
    (
        v6([0, 0, 0, 0, 0, 0, 0, 0], 96),
        "IPv4-compatible (deprecated)",
    ),
    (v6([0, 0, 0, 0, 0, 0xffff, 0, 0], 96), "IPv4-mapped"),
    (v6([0, 0, 0, 0, 0xffff, 0, 0, 0], 96), "IPv4-translated"),
    (
        v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48),
        "local-use IPv4/IPv6 translation",
    ),
    (v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), "discard-only"),
    (v6([0x100, 0, 0, 1, 0, 0, 0, 0], 64), "dummy prefix"),
    (v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), "unique-local"),
    (v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), "link-local"),
    (
        v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10),
        "site-local (deprecated)",
    ),
    (v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), "multicast"),
];

/// `2000::/3`: the only range IANA allocates for global unicast.
const GLOBAL_UNICAST: Ipv6Net = v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// NAT64's well-known prefix: the last 32 bits are an IPv4 address.
const NAT64: Ipv6Net = v6([0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96);

/// Whether `ip` is reachable across the internet (not loopback, private,
/// link-local, documentation, nor an IPv6 form of such an IPv4 address…).
pub fn is_global(ip: IpAddr) -> bool {
    not_global(ip).is_none()
}

/// Why `ip` is not global: the name of its block; `None` when it is global.
pub fn not_global(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(ip) => not_global_v4(ip),
        IpAddr::V6(ip) => not_global_v6(ip),
    }
}

fn not_global_v4(ip: Ipv4Addr) -> Option<&'static str> {
    NOT_GLOBAL_V4
        .iter()
        .find(|(net, _)| net.contains(&ip))
        .map(|(_, name)| *name)
}

fn not_global_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if NAT64.contains(&ip) {
        let [.., a, b, c, d] = ip.octets();
        return not_global_v4(Ipv4Addr::new(a, b, c, d))
            .map(|_| "NAT64 form of a non-global IPv4 address");
    }
    NOT_GLOBAL_V6
        .iter()
        .find(|(net, _)| net.contains(&ip))
        .map(|(_, name)| *name)
        .or_else(|| {
            (!GLOBAL_UNICAST.contains(&ip)).then_some("outside the global unicast range 2000::/3")
        })
}

/// An IPv4 block, checked when compiled.
const fn v4(octets: [u8; 4], prefix: u8) -> Ipv4Net {
    let [a, b, c, d] = octets;
    Ipv4Net::new_assert(Ipv4Addr::new(a, b, c, d), prefix)
}

/// An IPv6 block, checked when compiled.
const fn v6(segments: [u16; 8], prefix: u8) -> Ipv6Net {
    let [a, b, c, d, e, f, g, h] = segments;
    Ipv6Net::new_assert(Ipv6Addr::new(a, b, c, d, e, f, g, h), prefix)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    // IPv4: each non-global block of the registry, and its edges.
    #[case::this_network("0.0.0.0", "\"this network\"")]
    #[case::this_network_end("0.255.255.255", "\"this network\"")]
    #[case::private_10("10.1.2.3", "private-use")]
    #[case::shared("100.64.0.1", "shared (carrier-grade NAT)")]
    #[case::shared_end("100.127.255.255", "shared (carrier-grade NAT)")]
    #[case::loopback("127.0.0.1", "loopback")]
    #[case::loopback_other("127.8.9.10", "loopback")]
    #[case::metadata("169.254.169.254", "link-local")]
    #[case::private_172("172.16.0.1", "private-use")]
    #[case::private_172_end("172.31.255.255", "private-use")]
    #[case::ietf("192.0.0.9", "IETF protocol assignments")]
    #[case::documentation_1("192.0.2.1", "documentation")]
    #[case::relay_6to4("192.88.99.1", "6to4 relay anycast")]
    #[case::private_192("192.168.1.1", "private-use")]
    #[case::benchmarking("198.19.255.255", "benchmarking")]
    #[case::documentation_2("198.51.100.7", "documentation")]
    #[case::documentation_3("203.0.113.7", "documentation")]
    #[case::multicast("224.0.0.1", "multicast")]
    #[case::reserved("240.0.0.1", "reserved")]
    #[case::broadcast("255.255.255.255", "broadcast")]
    // IPv6 and the IPv4 addresses it can embed.
    #[case::unspecified("::", "unspecified")]
    #[case::loopback_v6("::1", "loopback")]
    #[case::compatible_loopback("::7f00:1", "IPv4-compatible (deprecated)")]
    #[case::compatible_public("::808:808", "IPv4-compatible (deprecated)")]
    #[case::mapped_loopback("::ffff:127.0.0.1", "IPv4-mapped")]
    #[case::mapped_private("::ffff:10.0.0.1", "IPv4-mapped")]
    #[case::mapped_public("::ffff:8.8.8.8", "IPv4-mapped")]
    #[case::translated_loopback("::ffff:0:7f00:1", "IPv4-translated")]
    #[case::nat64_loopback("64:ff9b::7f00:1", "NAT64 form of a non-global IPv4 address")]
    #[case::nat64_metadata("64:ff9b::a9fe:a9fe", "NAT64 form of a non-global IPv4 address")]
    #[case::nat64_local("64:ff9b:1::7f00:1", "local-use IPv4/IPv6 translation")]
    #[case::discard("100::1", "discard-only")]
    #[case::dummy("100:0:0:1::1", "dummy prefix")]
    #[case::teredo("2001::1", "Teredo")]
    #[case::teredo_loopback("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo")]
    #[case::benchmarking_v6("2001:2::1", "benchmarking")]
    #[case::orchid("2001:20::1", "IETF protocol assignments")]
    #[case::documentation_v6("2001:db8::1", "documentation")]
    #[case::sixtofour_loopback("2002:7f00:1::", "6to4")]
    #[case::sixtofour_public("2002:808:808::1", "6to4")]
    #[case::documentation_v6_new("3fff::1", "documentation")]
    #[case::srv6("5f00::1", "segment routing (SRv6) identifiers")]
    #[case::unique_local("fd00::1", "unique-local")]
    #[case::link_local("fe80::1", "link-local")]
    #[case::site_local("fec0::1", "site-local (deprecated)")]
    #[case::multicast_v6("ff02::1", "multicast")]
    #[case::multicast_global("ff0e::1", "multicast")]
    #[case::unallocated("4000::1", "outside the global unicast range 2000::/3")]
    #[case::reserved_low("::1:0:0:1", "outside the global unicast range 2000::/3")]
    fn non_global_addresses_are_named(#[case] ip: &str, #[case] block: &str) {
        let ip: IpAddr = ip.parse().unwrap();
        assert_eq!(not_global(ip), Some(block), "{ip}");
        assert!(!is_global(ip), "{ip}");
    }

    #[rstest]
    #[case("8.8.8.8")]
    #[case("93.184.216.34")]
    #[case("1.1.1.1")]
    #[case("100.63.255.255")]
    #[case("100.128.0.0")]
    #[case("172.15.255.255")]
    #[case("172.32.0.0")]
    #[case("192.0.3.0")]
    #[case("192.31.196.1")]
    #[case("192.52.193.1")]
    #[case("192.175.48.1")]
    #[case("198.17.255.255")]
    #[case("223.255.255.255")]
    #[case("2606:4700::1111")]
    #[case("2a00:1450:4001:82a::200e")]
    #[case("2001:200::1")]
    #[case("2620:4f:8000::1")]
    #[case("64:ff9b::808:808")]
    #[case("64:ff9b::5db8:d822")]
    fn global_addresses_are_accepted(#[case] ip: &str) {
        let ip: IpAddr = ip.parse().unwrap();
        assert_eq!(not_global(ip), None, "{ip}");
        assert!(is_global(ip));
    }
}
