#!jinja|yaml|gpg
db:
  owner: '{{ grains.id }}'
  token: |
    -----BEGIN PGP MESSAGE-----
    
    hQEMA6bMTW4b89kQAQgAjqbPZhL/GQqRIUCCDUvr03j/PN3KlYtjufRcyKPDa3v3
    bXpslUeU2DWg3+zLjE3PeOVGB3XhRKwPifKtA04zyA0xf8DxgA2YgzIBSchNDsWC
    Ae0pzk7Rpy7/Iushi/Np15A3CgN4y0Cr/VfdvyNPsguMvEPR+vpmwkw1v3AO3w+r
    4LRoGH+YV0Pn/KRwuHI1DSPayzKqupi0giwGtjAla9fJrO/D+qPArwkNZGaJ1UBd
    PUfnyACUbZEikX2ixbGwYmbO8m1e1upQwKmTRX9w3/YlPXzWuKHh7l/NBUBGBA8B
    v70VeKS5AUMHLXTI4Yzb2hdOOrKsysVoo7qD4zuQFtJKAYXrXmMKODYMVxnbaMLD
    6UJjLJ50qoAArf4d+o9DMiYrmJ4LFbKndpBilP/k9F/rg+bkeJaBFrxicidV/flf
    Z+0q5jX/JhEh3PM=
    =Q+HS
    -----END PGP MESSAGE-----
  list:
    - |
      -----BEGIN PGP MESSAGE-----
      
      hQEMA6bMTW4b89kQAQf/TQ1tQPB6E+HW2wjpkVPIZJxN72IJEOa62iRmR7nEZmDS
      szmuP7fNxvfl01suokOAkop1HSaxB/qxXx48+wVXyy7Oy90Iwpwo5T1uYgOHoo1/
      kKOLhyaOXpspKhlR00PyfzeroweR7RZAoEQ1BnQvK8G8m9mLHvQWl/J/YtJxPX6b
      Q66A/09+Qz/diqd/DWYy1BlNlYZyjp2awd8j7SSeBJdDUYF6c7ZJTYcSDEpXkT1I
      SIhbYSzAp42M106OmF44Y0BMzDt/C9vyPJNUlbVmasvSZxNlFACVoayFTPaJgszx
      4y3NtIuyWqSXmDAYIUOwiddPSK3h1kqlurPWAe3oq9JGAQiAlGSkEgYMVYh2pTo0
      7SGS6ofsFMNom3wNOEFRC1hkJ/gmVZESjLcHoeusxl4icvOq+EfhTj1JasPhnS3D
      xtqhBTK2yA==
      =iPk9
      -----END PGP MESSAGE-----
    - plain
