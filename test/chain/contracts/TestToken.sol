// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A plain ERC-20 with 6 decimals, like USDT and USDC, for the local chain of the tests.
/// The deployer receives the whole supply and pays the test payers from it.
contract TestToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    /// Several transfers in one transaction (one Transfer log each), as a payout batch sends them.
    function transferMany(address[] calldata to, uint256[] calldata values) external returns (bool) {
        require(to.length == values.length, "lengths");
        for (uint256 i = 0; i < to.length; i++) _move(msg.sender, to[i], values[i]);
        return true;
    }

    /// Sends the caller's whole balance: an amount set by the state the transaction runs in (as a wallet's
    /// "send all" or a swap's output), so the same transaction mined again after a reorg may move another.
    function sweep(address to) external returns (bool) {
        _move(msg.sender, to, balanceOf[msg.sender]);
        return true;
    }

    function _move(address from, address to, uint256 value) private {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
