// Test-only X.509 material, generated once with openssl 3.0 (commands below) and committed
// so tests are deterministic and need no openssl at run time. Every private key here is a
// throwaway that authenticates nothing anywhere.
//
//   openssl ecparam -name prime256v1 -genkey -noout -out ca.key
//   openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj /CN=test-ca -out ca.crt
//   openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out client.key
//   openssl req -new -key client.key -subj "/O=system:masters/CN=test-admin" -out client.csr
//   openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 -sha256 -out client.crt
//   (client2: same CA, new key, -days 30; otherCa: -days 36500 so notAfter is a GeneralizedTime;
//    otherClient: signed by otherCa, -days 400; rsa: genpkey RSA 1024, PKCS#8 and traditional forms)
//
// Expected facts were computed independently with `openssl asn1parse` + `sha256sum` over the
// issuer Name's DER and `openssl x509 -noout -enddate`.
//
// `openssl x509 -req` writes v1 certificates (no [0] version field) and `req -x509` writes v3,
// so both TBSCertificate shapes are covered.

export const CA_CERT_PEM = `-----BEGIN CERTIFICATE-----
MIIBeTCCAR+gAwIBAgIUOObkdz24x9/m26Mjh5v8XZ7rTy0wCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHdGVzdC1jYTAeFw0yNjExMjkxNzU3MzdaFw0zNjExMjYxNzU3
MzdaMBIxEDAOBgNVBAMMB3Rlc3QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AARK8Ei9Ta40L9PamUcYYnpXO00nVIOXir7/t1WEYkiqY5dm86I616sg0o7aZIt+
RgRTLBwWAzVNBkCmYmVAmoSQo1MwUTAdBgNVHQ4EFgQUVfyYMSxD5BUL2aw62mMx
DSRGXlIwHwYDVR0jBBgwFoAUVfyYMSxD5BUL2aw62mMxDSRGXlIwDwYDVR0TAQH/
BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEA84ihU2bT3zVM4ScFL5mEaeSx8qJI
krKyZjw/uLYWd/YCIHr7ax4EI3gnPfZyqPjW9m19bsXW15K2bVaLlaOWXk8V
-----END CERTIFICATE-----`;

export const CA_KEY_PEM = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIIo5854suiE6frOHb8GIOssiaKTDhqVoDvx5QYFoLfrooAoGCCqGSM49
AwEHoUQDQgAESvBIvU2uNC/T2plHGGJ6VztNJ1SDl4q+/7dVhGJIqmOXZvOiOter
INKO2mSLfkYEUywcFgM1TQZApmJlQJqEkA==
-----END EC PRIVATE KEY-----`;

export const CLIENT_CERT_PEM = `-----BEGIN CERTIFICATE-----
MIIBOzCB4QIUU0/+TRW26T2kCjMmAN/sLv2hoeswCgYIKoZIzj0EAwIwEjEQMA4G
A1UEAwwHdGVzdC1jYTAeFw0yNjExMjkxNzU3MzdaFw0yNzExMjkxNzU3MzdaMC4x
FzAVBgNVBAoMDnN5c3RlbTptYXN0ZXJzMRMwEQYDVQQDDAp0ZXN0LWFkbWluMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE9+TY2iJzUuMbGjZDh8Y84yUNYMMK/Rr8
ujbFVFkRD3eksJ201XRx0C7LkPlNJHVO83E9z11sW14sCPbV2WAuNTAKBggqhkjO
PQQDAgNJADBGAiEA/o/lXBEW3n7kJZqzCtXkg4kuE2VyVqMNdlIbcQFYDFkCIQCH
bB7RBB0iZPHJitNN2eWjy/0y8n42tn465Wt/NlnEDA==
-----END CERTIFICATE-----`;

export const CLIENT_KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgT8bhG/7ehOwRmOKk
H2XW9OfAAclumB0gKUCvvBBn7XKhRANCAAT35NjaInNS4xsaNkOHxjzjJQ1gwwr9
Gvy6NsVUWREPd6SwnbTVdHHQLsuQ+U0kdU7zcT3PXWxbXiwI9tXZYC41
-----END PRIVATE KEY-----`;

export const CLIENT_EC_KEY_PEM = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIE/G4Rv+3oTsEZjipB9l1vTnwAHJbpgdIClAr7wQZ+1yoAoGCCqGSM49
AwEHoUQDQgAE9+TY2iJzUuMbGjZDh8Y84yUNYMMK/Rr8ujbFVFkRD3eksJ201XRx
0C7LkPlNJHVO83E9z11sW14sCPbV2WAuNQ==
-----END EC PRIVATE KEY-----`;

export const CLIENT2_CERT_PEM = `-----BEGIN CERTIFICATE-----
MIIBOzCB4QIUU0/+TRW26T2kCjMmAN/sLv2hoewwCgYIKoZIzj0EAwIwEjEQMA4G
A1UEAwwHdGVzdC1jYTAeFw0yNjExMjkxNzU3NDBaFw0yNjEyMjkxNzU3NDBaMC4x
FzAVBgNVBAoMDnN5c3RlbTptYXN0ZXJzMRMwEQYDVQQDDAp0ZXN0LWFkbWluMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEfofjutNUWjaYwgcveG7iaCG9lYP6oifm
q6YyJlREmWuH+QO25t5etiGr4J4RS/T7w7NuIV6HWRvVJV5RMfPDVTAKBggqhkjO
PQQDAgNJADBGAiEAjmmEV5rq6zN+EKWBQM0aHXMoxU07AWLAPV9QPkb1w5MCIQDU
avBBC2cj14VcOQssp2COl/pdhJdBAsHnkIu+5mLzrA==
-----END CERTIFICATE-----`;

export const CLIENT2_KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgiT/jq5kdXBN18NB1
ize/2o4r863dO+cunyeOg3DII2uhRANCAAR+h+O601RaNpjCBy94buJoIb2Vg/qi
J+arpjImVESZa4f5A7bm3l62IavgnhFL9PvDs24hXodZG9UlXlEx88NV
-----END PRIVATE KEY-----`;

export const OTHER_CA_CERT_PEM = `-----BEGIN CERTIFICATE-----
MIIBfTCCASOgAwIBAgIUe6UPHNwrxPOlZS8IGdADPqhyJmMwCgYIKoZIzj0EAwIw
EzERMA8GA1UEAwwIb3RoZXItY2EwIBcNMjYxMTI5MTc1NzM3WhgPMjEyNjExMDUx
NzU3MzdaMBMxETAPBgNVBAMMCG90aGVyLWNhMFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAEbCFZX6fjnn6GiQ/WqaumaOWSO8zEWbVA9CMxkywxPZlKSFiztOCZ+lA1
An0sSroWSON+RzH43LGVnHZsbRlXhqNTMFEwHQYDVR0OBBYEFPIHDrvnJU15y+Lj
58ib3qeesd2IMB8GA1UdIwQYMBaAFPIHDrvnJU15y+Lj58ib3qeesd2IMA8GA1Ud
EwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgEHfnmrU7bgKuagNTyKisjykL
1MNdTN1GYvvqzFW22aMCIQCtzZ6y2bMbgsyt5+56cbHTMrlm3MmGnxnmUq4g2DPk
TQ==
-----END CERTIFICATE-----`;

export const OTHER_CLIENT_CERT_PEM = `-----BEGIN CERTIFICATE-----
MIIBIjCBygIUDLjAQ76vkCDlCn/QQ4CIqoAyf1kwCgYIKoZIzj0EAwIwEzERMA8G
A1UEAwwIb3RoZXItY2EwHhcNMjYxMTI5MTc1NzQxWhcNMjgwMTAzMTc1NzQxWjAW
MRQwEgYDVQQDDAtvdGhlci1hZG1pbjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IA
BPOIvIDugg/Y4XlCo/qvjnFBQnISwnbHYf5Gk6XlNhZgbsIUKeBxvQ2YH7W2OMl8
phXHWR9G7pDLOEgtuxLeYCQwCgYIKoZIzj0EAwIDRwAwRAIgdNI8qLwBA6HqDX9R
SM9LCihWgh4xYnpWj8GG43tuh40CIAqEcEykrdkTwFiWdH7+gsSZaPl9eHRnGd9I
Sue69Y+x
-----END CERTIFICATE-----`;

export const OTHER_CLIENT_KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg1KoFSZg7IHQOt9B4
QIPyF8N5fU9aXOosAZMe+dTZY0ahRANCAATziLyA7oIP2OF5QqP6r45xQUJyEsJ2
x2H+RpOl5TYWYG7CFCngcb0NmB+1tjjJfKYVx1kfRu6QyzhILbsS3mAk
-----END PRIVATE KEY-----`;

export const RSA_KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAKYj3evJ2p5TueFa
1Q9PxkPBT2mcli5Mne5Hp45r/JZoDtiAjxCJ0z9ld5O2OAjvDgTGdRpklpPSvyfP
ZaI16fGOKarMpo/XafqaObEuRTPkFJgslH8fwLkXLyhXDhm83w+MxGR5HfnMfiQB
vGoAmm5V1ozZ2eCe00BU8ZviCjRNAgMBAAECgYBil+5euw9N3gn1Pl4qFAFovBNQ
bWiCWV1vxn4c+uCOsXn96Wz9N41xldl8gyqFwrfjBZMA8qiZWPuvuFhsBuqpRhjQ
xzch4X1N55cz2J8C1d8494wI9Ye48NmNZA0311D0d5He09UminJ26tyDthCLub7Z
G9oNaE+HeykB/Puq0QJBAM9xIFqB88xNe11Rnbu+AG+a+5WV26V6utQWIouk5hu2
P9GttKQst4A557oFPhzbW5KuQJSg50VHe15b+3hepsMCQQDNB78u7MIBleESYJ2E
/hTawDwMXTyLxyYKvJDNhsUsrFqqzT0T0SXdadng9LZkJx1v3F8oNpHcKNn7jriE
b6evAkEArvtsISyRbHrHXzZjaWSilYIUSl/4waO/SPvK9CSK/kFDoCl4wSv/Niii
MaYOeOUIX7ihPT5lF2luxW+ttiGRZQJAOPj1HDH3+v7N6xBj1QfRfbO7O+hQobq2
DHe3eRUBB1fhXeLoHPCaJ/t46rS1VgE0gdfnrUH0qAvF/sv64/ouywJBAMcLD+2N
Kv+mKFwzISen8U+ncwdWRQ1TNAzFGFQphJwqAHNffjdzT8f426YWDb/Mc7/tIx+F
Ytt4aPOFlfs64v4=
-----END PRIVATE KEY-----`;

export const RSA_TRADITIONAL_KEY_PEM = `-----BEGIN RSA PRIVATE KEY-----
MIICXQIBAAKBgQCmI93rydqeU7nhWtUPT8ZDwU9pnJYuTJ3uR6eOa/yWaA7YgI8Q
idM/ZXeTtjgI7w4ExnUaZJaT0r8nz2WiNenxjimqzKaP12n6mjmxLkUz5BSYLJR/
H8C5Fy8oVw4ZvN8PjMRkeR35zH4kAbxqAJpuVdaM2dngntNAVPGb4go0TQIDAQAB
AoGAYpfuXrsPTd4J9T5eKhQBaLwTUG1oglldb8Z+HPrgjrF5/els/TeNcZXZfIMq
hcK34wWTAPKomVj7r7hYbAbqqUYY0Mc3IeF9TeeXM9ifAtXfOPeMCPWHuPDZjWQN
N9dQ9HeR3tPVJopydurcg7YQi7m+2RvaDWhPh3spAfz7qtECQQDPcSBagfPMTXtd
UZ27vgBvmvuVldulerrUFiKLpOYbtj/RrbSkLLeAOee6BT4c21uSrkCUoOdFR3te
W/t4XqbDAkEAzQe/LuzCAZXhEmCdhP4U2sA8DF08i8cmCryQzYbFLKxaqs09E9El
3WnZ4PS2ZCcdb9xfKDaR3CjZ+464hG+nrwJBAK77bCEskWx6x182Y2lkopWCFEpf
+MGjv0j7yvQkiv5BQ6ApeMEr/zYoojGmDnjlCF+4oT0+ZRdpbsVvrbYhkWUCQDj4
9Rwx9/r+zesQY9UH0X2zuzvoUKG6tgx3t3kVAQdX4V3i6Bzwmif7eOq0tVYBNIHX
561B9KgLxf7L+uP6LssCQQDHCw/tjSr/pihcMyEnp/FPp3MHVkUNUzQMxRhUKYSc
KgBzX343c0/H+NumFg2/zHO/7SMfhWLbeGjzhZX7OuL+
-----END RSA PRIVATE KEY-----`;

/** The issuer Name DER, base64: `CN=test-ca` (its SHA-256: 8e3ed6b5…0bcfb643). */
export const CA_ISSUER = 'MBIxEDAOBgNVBAMMB3Rlc3QtY2E=';
/** The issuer Name DER, base64: `CN=other-ca` (its SHA-256: 4527f5b2…746c926c). */
export const OTHER_CA_ISSUER = 'MBMxETAPBgNVBAMMCG90aGVyLWNh';

export const CA_NOT_AFTER = '2036-11-26T17:57:37Z';
export const CLIENT_NOT_AFTER = '2027-11-29T17:57:37Z';
export const CLIENT2_NOT_AFTER = '2026-12-29T17:57:40Z';
/** Year 2126: encoded as GeneralizedTime. */
export const OTHER_CA_NOT_AFTER = '2126-11-05T17:57:37Z';
export const OTHER_CLIENT_NOT_AFTER = '2028-01-03T17:57:41Z';
