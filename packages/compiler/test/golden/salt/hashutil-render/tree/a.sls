{% set h = salt['hashutil.md5_digest']('abc') %}
{% set s = salt['hashutil.sha256_digest']('abc') %}
{% set b = salt['hashutil.base64_b64encode']('abc') %}
{% set d = salt['hashutil.base64_b64decode']('YWJj') %}
{% set s5 = salt['hashutil.sha512_digest']('abc') %}
{% set hm = salt['hashutil.hmac_signature']('abc', 'key', 'ZmFrZQ==') %}
{% set hm2 = salt['hashutil.hmac_signature']('abc', 'key', 'nBluMtwBdfhvSxy4konWYZ3mvuaZ5MN45oMJ7Zehpqs=') %}
{% set hc = salt['hashutil.hmac_compute']('abc', 'key') %}
{% set g = salt['hashutil.digest']('abc') %}
{% set g5 = salt['hashutil.digest']('abc', 'sha512') %}
{% set es = salt['hashutil.base64_encodestring']('x' * 100) %}
{% set ds = salt['hashutil.base64_decodestring'](es) %}
{% set gh = salt['hashutil.github_signature']('abc', 'key', 'sha1=4fd0b215276ef12f2b3e4c8ecac2811498b656fc') %}
hashes:
  test.nop:
    - md5: {{ h }}
    - sha256: {{ s }}
    - b64: {{ b }}
    - dec: {{ d }}
    - sha512: {{ s5 }}
    - hmac: {{ hm }}
    - hmac2: {{ hm2 }}
    - hc: {{ hc }}
    - dg: {{ g }}
    - dg5: {{ g5 }}
    - es: {{ es | json }}
    - ds: {{ ds }}
    - gh: {{ gh }}
