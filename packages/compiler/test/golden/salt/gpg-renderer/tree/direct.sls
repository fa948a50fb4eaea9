#!jinja|yaml|gpg
direct-{{ grains.id }}:
  test.nop:
    - secret: |
        -----BEGIN PGP MESSAGE-----
        
        hQEMA6bMTW4b89kQAQf+P5qlOFeRBGV+aCgdl++aNnJ0IzXCeoAlogblPs1xP7QL
        nPfDNZ0xAW8/JnYBOUOu/qkTmtH8Tva8iXwan13w9devSc659cOGHa/jKLx6QFWJ
        ANloFwivJ+v9zl1yEJb9vSV9uMTry1i97TX9/43lZNRYZBplIS3/MAUEKECpHcpA
        2zn87PybOvdFhLibPPml87vHM1rBOun323O3c/RkqAExSHLJ32jOokYg7q7MFlFD
        ZSSN/s4k0ZC8VqyOiULIouX2ypybUedpYU7M85xB2CWQF6PTVUkJxqHaZuj0QBts
        Xyms1cbfwCgtB2sC3j/JFQY5tESzwoZLLIrZTsgTpNJFAUb+FqLqpoedYKWhCEtK
        /v3bM2c+AFpnrbyFs9WX1yMtvjt4uLWHXsy+G/zdb6do0oJaORVbONTnoCnnleB4
        pMdwOA9/
        =mX/T
        -----END PGP MESSAGE-----
    - plain: 1
